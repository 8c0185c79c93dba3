#!/bin/sh
# The image's entrypoint: the first argument picks what runs.
#   gateway | session-worker | webhook-dispatcher | all-in-one   a Jumbe service
#   jumbe ARGS...                                               the operator CLI (e.g. `jumbe migrate`)
#   anything else                                               run as given (e.g. `sh`)
set -e

# The HTTP-serving processes (gateway, all-in-one) start with a larger V8 young generation:
# a send allocates ~100 KB that dies young, and with V8's default (16 MB semi-spaces) the
# gateway scavenged every ~150 requests, promoting what was still in flight to the old
# generation. 64 MB semi-spaces: 3x fewer scavenges, GC pause per request 50-57 -> 37 us and
# CPU per request ~0.8x of the default (gateway and all-in-one, same build side by side,
# BENCHMARKS.md "send-text", session 6), for up to ~100 MB more memory under load (+60 MB
# measured). Not measured for the worker and the dispatcher, so they keep V8's default. A
# --max-semi-space-size in NODE_OPTIONS wins (the operator's choice).
young_generation() {
  case "$1" in
    gateway | all-in-one)
      case " ${NODE_OPTIONS:-} " in
        *--max-semi-space-size*) ;;
        *) echo "--max-semi-space-size=64" ;;
      esac
      ;;
  esac
}

case "${1:-gateway}" in
  gateway | session-worker | webhook-dispatcher | all-in-one)
    service="${1:-gateway}"
    [ "$#" -gt 0 ] && shift
    # Word-split on purpose: empty, or one flag.
    # shellcheck disable=SC2046
    exec node $(young_generation "$service") "dist/apps/$service/src/main.js" "$@"
    ;;
  jumbe | cli)
    shift
    exec node dist/apps/cli/src/main.js "$@"
    ;;
  *)
    exec "$@"
    ;;
esac
