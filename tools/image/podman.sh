# Sourced by tools/image/*.sh: podman with this machine kind's settings (tools/image/containers.conf).
# Installs podman (and debootstrap, for the local base image) with apt when missing, and fails
# loudly when it cannot.
export CONTAINERS_CONF=${CONTAINERS_CONF:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/containers.conf}

# runc: the runtime containers.conf names (podman may bring crun instead); slirp4netns: the
# containers' network (tools/image/podman.mjs).
missing=""
for tool in podman debootstrap runc slirp4netns; do command -v "$tool" >/dev/null || missing="$missing $tool"; done
if [ -n "$missing" ]; then
  echo "podman: installing$missing with apt" >&2
  # shellcheck disable=SC2086
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null; }; then
    echo "podman: cannot install podman/debootstrap: the image step cannot run" >&2
    exit 1
  fi
fi

pm() { podman "$@"; }
