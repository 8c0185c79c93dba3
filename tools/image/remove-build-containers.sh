#!/usr/bin/env bash
# Removes the working containers `podman build --rm=false` leaves (tools/image/build.sh): buildah's
# `<image>-working-container`s, which `podman ps --external` lists.
set -euo pipefail
source "$(dirname "$0")/podman.sh"
ids=$(pm ps -a --external --format '{{.ID}} {{.Names}}' | awk '$2 ~ /-working-container(-[0-9]+)?$/ {print $1}')
if [ -n "$ids" ]; then
  # shellcheck disable=SC2086
  pm rm -f $ids >/dev/null
fi
