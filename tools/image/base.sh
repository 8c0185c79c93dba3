#!/usr/bin/env bash
# Makes sure the Dockerfile's base, docker.io/library/node:20-bookworm-slim, is in local storage.
# Pulled when a registry answers; otherwise (CI here reaches none) built locally under the same
# name, so deploy/Dockerfile keeps the FROM users pull: a minimal Debian bookworm (debootstrap
# --variant=minbase, from the Debian mirror apt uses) with this machine's Node 20 in /usr/local,
# as the official image has it, and a `node` user with uid/gid 1000.
#   tools/image/base.sh            (needs root, podman and debootstrap; see tools/image/ci.sh)
set -euo pipefail
source "$(dirname "$0")/podman.sh"

BASE=docker.io/library/node:20-bookworm-slim
CACHE_DIR=${JUMBE_IMAGE_CACHE:-/var/cache/jumbe-image}
MIRROR=${JUMBE_DEBIAN_MIRROR:-http://deb.debian.org/debian}

if pm image exists "$BASE"; then
  echo "base: $BASE present"
  exit 0
fi
if timeout 30 podman pull -q "$BASE" >/dev/null 2>&1; then
  echo "base: $BASE pulled"
  exit 0
fi

node_bin=$(command -v node)
node_version=$("$node_bin" --version)
case "$node_version" in
  v20.*) ;;
  *) echo "base: the host's node is $node_version; the image's tag promises Node 20" >&2 && exit 1 ;;
esac
npm_dir=$(dirname "$(readlink -f "$node_bin")")/../lib/node_modules/npm
[ -f "$npm_dir/bin/npm-cli.js" ] || { echo "base: npm not found beside $node_bin" >&2; exit 1; }

echo "base: $BASE missing and not pullable: building it (debootstrap bookworm minbase + Node $node_version)"
# Debian's packages are cached outside the repository (debootstrap --cache-dir): a second base
# build on the same machine downloads nothing. (The base itself stays in podman's store.)
mkdir -p "$CACHE_DIR/debs"
work=$(mktemp -d "${TMPDIR:-/tmp}/jumbe-base.XXXXXX")
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"
stamp() { echo "base: [$((SECONDS - began)) s] $*"; }
began=$SECONDS
debootstrap --variant=minbase --cache-dir="$CACHE_DIR/debs" bookworm "$root" "$MIRROR" >"$work/debootstrap.log" 2>&1 ||
  { tail -20 "$work/debootstrap.log" >&2; exit 1; }
stamp "debootstrap done"
# What a slim image leaves out too: downloaded packages, package lists, manuals and documentation
# (the copyright files stay).
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/var/log/*.log \
  "$root"/usr/share/man/* "$root"/usr/share/info/*
find "$root/usr/share/doc" -type f ! -name copyright -delete

# Node where the official image has it (/usr/local), npm and npx beside it.
install -m 0755 "$node_bin" "$root/usr/local/bin/node"
mkdir -p "$root/usr/local/lib/node_modules"
cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
chroot "$root" groupadd --gid 1000 node
chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node

stamp "node, npm and the node user added"
tar -C "$root" -c . | pm import -q \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=${node_version#v}" \
  --change 'CMD ["node"]' \
  - "$BASE" >/dev/null
stamp "built $BASE ($(pm image inspect --format '{{.Size}}' "$BASE" | numfmt --to=iec))"
