# agent-ls: `make demo` to see it work offline, `make test` to run every test.

GO        ?= go
BIN       := bin/agent-ls
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X main.version=$(VERSION)
# The sandbox helper links libseccomp through cgo.
export CGO_ENABLED := 1

# make install puts both binaries in $(PREFIX)/bin, where editors find them.
PREFIX    ?= $(HOME)/.local

# The other platforms the editors run on. agent-ls builds there without
# cgo (no sandbox outside Linux: every command asks, see internal/sandbox).
CROSS     := darwin/arm64 darwin/amd64 windows/amd64

.PHONY: all build install demo test test-go cross bench deps bench-deps release clean

all: build

deps:
	@scripts/deps.sh

bench-deps:
	@scripts/deps.sh ripgrep bubblewrap hyperfine

build: deps
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/agent-ls
	$(GO) build -o bin/agent-ls-sandbox ./cmd/agent-ls-sandbox

install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BIN) bin/agent-ls-sandbox $(DESTDIR)$(PREFIX)/bin/

demo: build
	$(BIN) demo

test: deps cross
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout 30m ./...

# Builds without cgo, for Linux and cross-compiled for CROSS, and vets the
# code behind the build tags of each. On Windows internal/tools is left to
# the build: its tests drive POSIX shells and processes.
cross:
	CGO_ENABLED=0 $(GO) build -o /dev/null ./cmd/agent-ls
	CGO_ENABLED=0 $(GO) vet ./...
	@set -e; for p in $(CROSS); do \
		echo "CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build ./cmd/agent-ls"; \
		CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build -o /dev/null ./cmd/agent-ls; \
	done
	CGO_ENABLED=0 GOOS=darwin GOARCH=arm64 $(GO) vet ./...
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 $(GO) vet $$(GOOS=windows $(GO) list ./... | grep -v '/internal/tools$$')

bench: bench-deps build
	$(GO) test -run '^$$' -bench . -benchmem ./...
	bench/run.sh $(BIN)

# A static binary for release (libseccomp linked in).
release: deps
	$(GO) build -tags netgo,osusergo -ldflags '$(LDFLAGS) -s -w -linkmode external -extldflags "-static"' -o $(BIN) ./cmd/agent-ls
	$(GO) build -tags netgo,osusergo -ldflags '-s -w -linkmode external -extldflags "-static"' -o bin/agent-ls-sandbox ./cmd/agent-ls-sandbox

clean:
	rm -rf bin
