#!/usr/bin/env bash
# Builds deploy/Dockerfile with podman, as `docker build -f deploy/Dockerfile -t jumbe .` does.
#   tools/image/build.sh [TAG]        (default jumbe:ci)
# The Dockerfile is built unchanged: its build stage runs `npm ci` against the npm registry. This
# machine kind reaches the registry only through a TLS-intercepting proxy whose CA is in the host's
# bundle (NODE_EXTRA_CA_CERTS), so the build's RUN steps get, as bind mounts that no layer keeps:
# the host's CA bundle, an npmrc naming it and preferring cached packages, and the host's npm cache
# (warm after `.ci/run`'s own `npm ci`, so the build downloads little).
set -euo pipefail
cd "$(dirname "$0")/../.."
source tools/image/podman.sh

TAG=${1:-jumbe:ci}
bash tools/image/base.sh

mounts=()
ca=${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}
npmrc=$(mktemp "${TMPDIR:-/tmp}/jumbe-npmrc.XXXXXX")
trap 'rm -f "$npmrc"' EXIT
{
  echo "prefer-offline=true"
  echo "update-notifier=false"
  if [ -f "$ca" ]; then echo "cafile=/run/jumbe-build/ca.crt"; fi
} >"$npmrc"
chmod 0644 "$npmrc"
mounts+=(--volume "$npmrc:/root/.npmrc:ro")
if [ -f "$ca" ]; then mounts+=(--volume "$ca:/run/jumbe-build/ca.crt:ro"); fi
npm_cache=$(npm config get cache 2>/dev/null || true)
if [ -n "$npm_cache" ] && [ -d "$npm_cache" ]; then mounts+=(--volume "$npm_cache:/root/.npm"); fi

# --format docker keeps the HEALTHCHECK (OCI image configs have none). --network host: the build
# resolves and reaches the registry the way the host does. Build steps get 1024 open files by
# default here, too few for npm's cache reads (EMFILE): the host's limit instead.
nofile=$(ulimit -Hn)
previous=$(pm image inspect --format '{{.Id}}' "$TAG" 2>/dev/null || true)
started=$SECONDS
# Each line stamped with the seconds since the build started: where a slow CI build spends them.
# --rm=false: the build stage's working container (the dependencies' files) is removed below, not
# by podman build, so that CI can remove it while it runs the image (JUMBE_IMAGE_DEFER_CLEANUP).
pm build --rm=false --format docker --network host --ulimit "nofile=$nofile:$nofile" "${mounts[@]}" \
  -f deploy/Dockerfile -t "$TAG" . 2>&1 |
  while IFS= read -r line; do printf '[%3ds] %s\n' $((SECONDS - started)) "$line"; done ||
  { bash tools/image/remove-build-containers.sh; echo "image: the build failed" >&2; exit 1; }
current=$(pm image inspect --format '{{.Id}}' "$TAG")
# The image this build replaced would stay in the store, untagged, run after run. (Not `image
# prune`: that would take the build stage's cached layers too.)
# Its other tag, if any, is compose.mjs's jumbe:latest, which it sets again.
if [ -n "$previous" ] && [ "$previous" != "$current" ]; then
  pm untag "$previous" >/dev/null 2>&1 && pm rmi "$previous" >/dev/null 2>&1 || true
fi
echo "image: $TAG $(pm image inspect --format '{{.Size}}' "$TAG" | numfmt --to=iec) (built in $((SECONDS - started)) s)"
if [ -z "${JUMBE_IMAGE_DEFER_CLEANUP:-}" ]; then bash tools/image/remove-build-containers.sh; fi
