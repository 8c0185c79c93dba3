# Sourced by tools/image/*.sh: podman with this machine kind's settings (tools/image/containers.conf).
# Installs podman (and debootstrap, for the local base image) with apt when missing, and fails
# loudly when it cannot.
export CONTAINERS_CONF=${CONTAINERS_CONF:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/containers.conf}

if ! command -v podman >/dev/null || ! command -v debootstrap >/dev/null; then
  echo "podman: installing podman and debootstrap with apt" >&2
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman debootstrap runc >/dev/null; }; then
    echo "podman: cannot install podman/debootstrap: the image step cannot run" >&2
    exit 1
  fi
fi

pm() { podman "$@"; }
