#!/usr/bin/env bash
# Builds agent-ls's release into OUT: one archive per platform, named
# agent-ls-VERSION-OS-ARCH.tar.gz (.zip for Windows), holding the
# stripped binaries, README.md and CHANGELOG.md; the .vsix of each
# platform (editors/vscode, npm run package:all with these binaries);
# and SHA256SUMS over them all (sha256sum -c SHA256SUMS checks them).
#
#   scripts/release.sh OUT VERSION [OS/ARCH...]
#
# The platforms are linux/amd64, linux/arm64, darwin/amd64, darwin/arm64
# and windows/amd64 unless named. Linux builds are linked statically with
# the sandbox (cgo, libseccomp) and carry agent-ls-sandbox too; linux/arm64
# takes the C cross compiler CC_LINUX_ARM64 (default aarch64-linux-gnu-gcc,
# Debian's gcc-aarch64-linux-gnu with libc6-dev-arm64-cross) and an arm64
# libseccomp: the system's (libseccomp-dev:arm64), the one
# PKG_CONFIG_LIBDIR_LINUX_ARM64 (and PKG_CONFIG_SYSROOT_DIR_LINUX_ARM64)
# names, or else Debian's, unpacked under .cache by scripts/arm64-seccomp.sh.
# Without them it stops: a release never ships without its sandbox.
# macOS and Windows have no sandbox and build without cgo.
# VSIX=0 leaves the .vsix files out. The archives are reproducible: their
# files carry the commit's date (SOURCE_DATE_EPOCH, default the commit's).
set -euo pipefail

out="${1:?usage: scripts/release.sh OUT VERSION [OS/ARCH...]}"
version="${2:?usage: scripts/release.sh OUT VERSION [OS/ARCH...]}"
shift 2
platforms=("$@")
if [ ${#platforms[@]} -eq 0 ]; then
  platforms=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64)
fi

root="$(cd "$(dirname "$0")/.." && pwd)"
go="${GO:-go}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT

commit="$(git -C "$root" rev-parse HEAD 2>/dev/null || true)"
epoch="${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 0)}"
date="$(TZ=UTC date -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)"
app=github.com/agent-ls/agent-ls/internal/app
ldflags="-s -w -X main.version=$version -X $app.buildCommit=$commit -X $app.buildDate=$date"
static=(-tags netgo,osusergo -trimpath)
static_ld='-linkmode external -extldflags "-static"'

# build OS ARCH DIR: the binaries of one platform into DIR.
build() {
  local goos="$1" goarch="$2" dir="$3"
  local -a env=(GOOS="$goos" GOARCH="$goarch")
  if [ "$goos" != linux ]; then
    local exe=agent-ls
    [ "$goos" = windows ] && exe=agent-ls.exe
    echo "release: $goos/$goarch without cgo (no sandbox on $goos)"
    (cd "$root" && env "${env[@]}" CGO_ENABLED=0 "$go" build -trimpath -ldflags "$ldflags" -o "$dir/$exe" ./cmd/agent-ls)
    return
  fi
  env+=(CGO_ENABLED=1)
  if [ "$goarch" != "$("$go" env GOHOSTARCH)" ]; then
    local cc="${CC_LINUX_ARM64:-aarch64-linux-gnu-gcc}"
    local pc="${PKG_CONFIG_LIBDIR_LINUX_ARM64:-}" sysroot="${PKG_CONFIG_SYSROOT_DIR_LINUX_ARM64:-}"
    if [ "$goarch" != arm64 ] || ! command -v "$cc" >/dev/null; then
      echo "release: linux/$goarch needs a C cross compiler ($cc): apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross" >&2
      return 1
    fi
    if [ -z "$pc" ] && [ -f /usr/lib/aarch64-linux-gnu/pkgconfig/libseccomp.pc ]; then
      pc=/usr/lib/aarch64-linux-gnu/pkgconfig
    elif [ -z "$pc" ]; then
      # Debian's arm64 libseccomp, unpacked under .cache, not installed.
      pc="$("$root/scripts/arm64-seccomp.sh" "$root/.cache/arm64-seccomp")"
      sysroot="$root/.cache/arm64-seccomp/root"
    fi
    if ! PKG_CONFIG_LIBDIR="$pc" PKG_CONFIG_SYSROOT_DIR="$sysroot" pkg-config --exists libseccomp; then
      echo "release: no arm64 libseccomp for pkg-config in $pc" >&2
      return 1
    fi
    env+=(CC="$cc" PKG_CONFIG_LIBDIR="$pc" PKG_CONFIG_SYSROOT_DIR="$sysroot")
  fi
  echo "release: linux/$goarch static, with the sandbox"
  (cd "$root" && env "${env[@]}" "$go" build "${static[@]}" -ldflags "$ldflags $static_ld" -o "$dir/agent-ls" ./cmd/agent-ls)
  (cd "$root" && env "${env[@]}" "$go" build "${static[@]}" -ldflags "-s -w $static_ld" -o "$dir/agent-ls-sandbox" ./cmd/agent-ls-sandbox)
}

# The target of VS Code's platform-specific extension for a Go platform.
vsix_target() {
  case "$1" in
    linux/amd64) echo linux-x64 ;; linux/arm64) echo linux-arm64 ;;
    darwin/amd64) echo darwin-x64 ;; darwin/arm64) echo darwin-arm64 ;;
    windows/amd64) echo win32-x64 ;;
  esac
}

targets=()
for p in "${platforms[@]}"; do
  goos="${p%/*}" goarch="${p#*/}"
  name="agent-ls-$version-$goos-$goarch"
  dir="$stage/$name"
  mkdir -p "$dir"
  build "$goos" "$goarch" "$dir"
  cp "$root/README.md" "$root/CHANGELOG.md" "$dir/"
  touch -d "@$epoch" "$dir" "$dir"/*
  if [ "$goos" = windows ]; then
    rm -f "$out/$name.zip"
    (cd "$stage" && TZ=UTC zip -qrX "$out/$name.zip" "$name")
  else
    tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -cf - "$name" | gzip -n9 >"$out/$name.tar.gz"
  fi
  t="$(vsix_target "$p")"
  if [ -n "$t" ]; then
    exe=agent-ls
    [ "$goos" = windows ] && exe=agent-ls.exe
    mkdir -p "$stage/vsix/$t"
    cp "$dir/$exe" "$stage/vsix/$t/$exe"
    targets+=("$t")
  fi
done

if [ "${VSIX:-1}" != 0 ] && [ ${#targets[@]} -gt 0 ]; then
  vscode="$root/editors/vscode"
  (cd "$vscode" && AGENT_LS_VSIX_BINARIES="$stage/vsix" AGENT_LS_VSIX_TARGETS="${targets[*]}" node scripts/package.mjs --all)
  version_vsix="$(node -p "require('$vscode/package.json').version")"
  for t in "${targets[@]}"; do
    cp "$vscode/dist/agent-ls-$t-$version_vsix.vsix" "$out/"
  done
fi

cd "$out"
shopt -s nullglob
files=(*.tar.gz *.zip *.vsix)
sha256sum -- "${files[@]}" >SHA256SUMS
echo "release: $(wc -l <"$out/SHA256SUMS") files in $out, checksums in SHA256SUMS"
