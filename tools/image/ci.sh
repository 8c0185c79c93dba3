#!/usr/bin/env bash
# CI's image step (.ci/run): builds deploy/Dockerfile with podman and runs the image as users do.
#   bash tools/image/ci.sh
# 1. tools/image/build.sh: the image (the node:20-bookworm-slim base built locally when no registry
#    answers: tools/image/base.sh);
# 2. tools/image/smoke.mjs: the all-in-one, then `jumbe migrate`, gateway, session-worker and
#    webhook-dispatcher against this machine's PostgreSQL, Redis and NATS: non-root, read-only root,
#    health checks, a send and an inbound message (webhook), SIGTERM drained to exit 0;
# 3. tools/image/compose.mjs: docker-compose.yml's services with `docker compose up` semantics.
# Needs root (podman, debootstrap), installed with apt when missing; fails loudly otherwise.
# Cached outside the repository: podman's image store (/var/lib/containers: the base, the
# dependency layer while package*.json are unchanged) and the debootstrapped system
# (JUMBE_IMAGE_CACHE, default /var/cache/jumbe-image).
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$(date +%s)
source tools/image/podman.sh
podman --version

JUMBE_IMAGE_DEFER_CLEANUP=1 bash tools/image/build.sh jumbe:ci
built=$(date +%s)
# Removing the build's working container deletes tens of thousands of dependency files: slow on
# a busy disk (~2 min cold here), so it runs beside the image runs.
bash tools/image/remove-build-containers.sh &
cleanup=$!
# The two runs use their own databases, deployment names and ports: side by side, each one's output
# shown once it ends.
logs=$(mktemp -d "${TMPDIR:-/tmp}/jumbe-image-ci.XXXXXX")
node tools/image/smoke.mjs jumbe:ci >"$logs/smoke.log" 2>&1 &
smoke=$!
node tools/image/compose.mjs jumbe:ci >"$logs/compose.log" 2>&1 &
compose=$!
status=0
wait "$smoke" || status=1
cat "$logs/smoke.log"
wait "$compose" || status=1
cat "$logs/compose.log"
rm -rf "$logs"
wait "$cleanup" || true
[ "$status" -eq 0 ] || { echo "image step: FAILED" >&2; exit 1; }
echo "image step: build $((built - started)) s, runs $(($(date +%s) - built)) s, total $(($(date +%s) - started)) s"
