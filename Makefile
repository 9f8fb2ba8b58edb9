# agent-ls: `make demo` to see it work offline, `make test` to run every test.

GO        ?= go
BIN       := bin/agent-ls
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# The commit and its date: agent-ls version --json prints them, the same
# for every build of one commit.
COMMIT    ?= $(shell git rev-parse HEAD 2>/dev/null)
DATE      ?= $(shell TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ 2>/dev/null)
APP       := github.com/agent-ls/agent-ls/internal/app
LDFLAGS   := -X main.version=$(VERSION) -X $(APP).buildCommit=$(COMMIT) -X $(APP).buildDate=$(DATE)
# The sandbox helper links libseccomp through cgo.
export CGO_ENABLED := 1

# make install puts both binaries in $(PREFIX)/bin, where editors find them.
PREFIX    ?= $(HOME)/.local

# The other platforms the editors run on. agent-ls builds there without
# cgo (no sandbox outside Linux: every command asks, see internal/sandbox).
CROSS     := darwin/arm64 darwin/amd64 windows/amd64

.PHONY: all build install demo test test-c test-go cross bench deps bench-deps acp-client-deps release release-deps clean vsix vsix-all vsix-binaries vscode-deps test-vscode mcp-test-servers neovim-versions gopls

all: build

deps:
	@scripts/deps.sh

# The peers (ripgrep, fd, find) and the large tree: Linux's source from
# Debian's linux-source, unpacked under ~/.cache/agent-ls-bench/linux
# (LARGE_REPO=DIR benchmarks another tree instead).
bench-deps:
	@scripts/deps.sh ripgrep fd-find findutils linux-source bubblewrap hyperfine
	@scripts/bench-tree.sh >/dev/null

# Both binaries are linked statically, as they ship (libseccomp and glibc
# linked in; Go's own DNS resolver and user lookup): nothing to find at
# run time, and each start skips the dynamic loader's work, about 0.5 ms
# of the time to a first answer.
STATIC    := -tags netgo,osusergo
STATIC_LD := -linkmode external -extldflags "-static"

build: deps
	$(GO) build $(STATIC) -ldflags '$(LDFLAGS) $(STATIC_LD)' -o $(BIN) ./cmd/agent-ls
	$(GO) build $(STATIC) -ldflags '$(STATIC_LD)' -o bin/agent-ls-sandbox ./cmd/agent-ls-sandbox

install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BIN) bin/agent-ls-sandbox $(DESTDIR)$(PREFIX)/bin/

demo: build
	$(BIN) demo

test: deps test-c cross test-vscode mcp-test-servers acp-client-deps neovim-versions gopls
	$(GO) vet ./...
	AGENT_LS_ACP_CLIENT=required AGENT_LS_NEOVIMS=$(abspath $(NEOVIM_CACHE)) $(GO) test -race -count=1 -timeout 30m ./...

# The sandbox helper's C (internal/sandbox/*_linux.c), each file compiled
# alone with every warning an error, at -O2 as cgo compiles it (some
# warnings need the optimiser's analysis). The cgo build itself keeps the
# compiler's defaults, so that a newer compiler's new warnings never break
# a user's build.
SANDBOX_C := $(wildcard internal/sandbox/*.c)
SECCOMP_CFLAGS = $(shell pkg-config --cflags libseccomp 2>/dev/null)

# With the arm64 cross compiler of make release there, each file is
# compiled for arm64 too, whose syscall table lacks some of x86-64's.
CC_LINUX_ARM64 ?= aarch64-linux-gnu-gcc
test-c:
	@set -e; for f in $(SANDBOX_C); do \
		echo "$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror $(SECCOMP_CFLAGS) -c -o /dev/null $$f"; \
		$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror $(SECCOMP_CFLAGS) -c -o /dev/null $$f; \
		if command -v $(CC_LINUX_ARM64) >/dev/null; then \
			echo "$(CC_LINUX_ARM64) -std=gnu11 -O2 -Wall -Wextra -Werror -c -o /dev/null $$f"; \
			$(CC_LINUX_ARM64) -std=gnu11 -O2 -Wall -Wextra -Werror -c -o /dev/null $$f; \
		fi; \
	done

# The official ACP TypeScript SDK, pinned in its lockfile, whose client
# drives agent-ls acp in cmd/agent-ls TestACPWithTypeScriptClient; and
# acpx, the headless ACP client, pinned in its own, which
# TestACPWithACPX runs against agent-ls acp as its users do. acpx's
# package.json pins the native helpers of its @openclaw/fs-safe that the
# registry had no 0.12.0 of (macOS, Windows, Linux arm64) to 0.13.1:
# npm leaves an optional package it cannot resolve out of the lockfile,
# then npm ci refuses that lockfile. Linux x64 keeps 0.12.0.
ACP_CLIENT := internal/acp/testdata/tsclient
ACPX       := internal/acp/testdata/acpx

acp-client-deps: $(ACP_CLIENT)/node_modules/.package-lock.json $(ACPX)/node_modules/.package-lock.json

$(ACP_CLIENT)/node_modules/.package-lock.json: $(ACP_CLIENT)/package-lock.json
	cd $(ACP_CLIENT) && npm ci --no-audit --no-fund

$(ACPX)/node_modules/.package-lock.json: $(ACPX)/package-lock.json
	cd $(ACPX) && npm ci --no-audit --no-fund

# Neovim 0.10.4 and 0.12.4, unpacked from Debian's packages into
# NEOVIM_CACHE (nothing installed system-wide), for the plugin's tests in
# e2e; Debian 12's 0.7.2 comes from make deps.
NEOVIM_CACHE ?= .cache/neovim
neovim-versions:
	@scripts/neovim.sh $(NEOVIM_CACHE)

# gopls, pinned, from the Go module proxy into .cache/bin: the language
# server the Neovim plugin's language tests in e2e ask through agent-ls.
GOPLS_VERSION := v0.23.0
GOPLS_STAMP   := .cache/bin/.gopls-$(GOPLS_VERSION)
gopls: $(GOPLS_STAMP)

$(GOPLS_STAMP):
	GOBIN=$(abspath .cache/bin) $(GO) install golang.org/x/tools/gopls@$(GOPLS_VERSION)
	touch $@

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

# The release, in RELEASE_DIR: an archive per platform named with the
# version (agent-ls-VERSION-linux-amd64.tar.gz, ...-windows-amd64.zip),
# the static, stripped binaries inside (Linux's with the sandbox), the
# .vsix of each platform, and SHA256SUMS (scripts/release.sh says more).
# RELEASE_PLATFORMS narrows it, e.g. to linux/amd64; linux/arm64 needs the
# C cross compiler and arm64 libseccomp the script names.
RELEASE_DIR       ?= dist/release
RELEASE_PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64
release-deps:
	@scripts/deps.sh gcc-aarch64-linux-gnu libc6-dev-arm64-cross zip

release: deps release-deps $(VSCODE)/node_modules/.package-lock.json
	rm -rf $(RELEASE_DIR)
	scripts/release.sh $(RELEASE_DIR) $(VERSION) $(RELEASE_PLATFORMS)

# The VS Code extension (editors/vscode). Its npm packages come from its
# lockfile; code-server and the tests' other downloads are kept in
# VSCODE_CACHE, which a second run reuses.
VSCODE      := editors/vscode
VSCODE_CACHE ?= .cache/vscode
# Targets of VS Code's platform-specific extensions, and the Go platform
# of each; the native Linux one is linked statically with the sandbox.
VSIX_CROSS  := linux-arm64:linux/arm64 darwin-x64:darwin/amd64 darwin-arm64:darwin/arm64 win32-x64:windows/amd64

# Debian packages the extension's tests need: Chromium to drive VS Code
# (code-server) with Playwright, and what code-server's install builds.
vscode-deps:
	@scripts/deps.sh chromium ripgrep build-essential python3 pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev

$(VSCODE)/node_modules/.package-lock.json: $(VSCODE)/package-lock.json
	cd $(VSCODE) && npm ci --no-audit --no-fund

# The .vsix for this machine, with the stripped build of bin/agent-ls
# inside (built once here; package.mjs then runs no make of its own).
VSIX_BIN := bin/vsix/native/agent-ls
vsix: build $(VSCODE)/node_modules/.package-lock.json
	$(GO) build $(STATIC) -ldflags '$(LDFLAGS) -s -w $(STATIC_LD)' -o $(VSIX_BIN) ./cmd/agent-ls
	cd $(VSCODE) && AGENT_LS_BINARY=$(abspath $(VSIX_BIN)) npm run package

# The binaries of the five platform .vsix files (npm run package:all).
vsix-binaries: deps
	$(GO) build $(STATIC) -ldflags '$(LDFLAGS) -s -w $(STATIC_LD)' -o bin/vsix/linux-x64/agent-ls ./cmd/agent-ls
	@set -e; for t in $(VSIX_CROSS); do \
		p=$${t#*:}; goos=$${p%/*}; exe=agent-ls; [ $$goos = windows ] && exe=agent-ls.exe; \
		echo "CGO_ENABLED=0 GOOS=$$goos GOARCH=$${p#*/} $(GO) build -o bin/vsix/$${t%%:*}/$$exe ./cmd/agent-ls"; \
		CGO_ENABLED=0 GOOS=$$goos GOARCH=$${p#*/} $(GO) build -ldflags '$(LDFLAGS) -s -w' -o bin/vsix/$${t%%:*}/$$exe ./cmd/agent-ls; \
	done

vsix-all: $(VSCODE)/node_modules/.package-lock.json
	cd $(VSCODE) && npm run package:all

# The extension's unit tests, then its tests in a real VS Code: the .vsix
# installed in code-server, driven by Playwright in Chromium.
test-vscode: vscode-deps vsix
	scripts/code-server.sh $(VSCODE_CACHE)/code-server
	cd $(VSCODE) && npm test
	cd $(VSCODE) && VSCODE_CACHE=$(abspath $(VSCODE_CACHE)) npm run test:e2e

# The reference MCP servers the tests of internal/mcp and cmd/agent-ls
# run over stdio, from the lockfile of internal/mcp/testdata/npm.
MCP_NPM := internal/mcp/testdata/npm

mcp-test-servers: $(MCP_NPM)/node_modules/.package-lock.json

$(MCP_NPM)/node_modules/.package-lock.json: $(MCP_NPM)/package-lock.json
	cd $(MCP_NPM) && npm ci --no-audit --no-fund

clean:
	rm -rf bin dist $(VSCODE)/dist $(VSCODE)/out
