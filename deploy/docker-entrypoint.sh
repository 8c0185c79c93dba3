#!/bin/sh
# The image's entrypoint: the first argument picks what runs.
#   gateway | session-worker | webhook-dispatcher | all-in-one   a Jumbe service
#   jumbe ARGS...                                               the operator CLI (e.g. `jumbe migrate`)
#   anything else                                               run as given (e.g. `sh`)
set -e
case "${1:-gateway}" in
  gateway | session-worker | webhook-dispatcher | all-in-one)
    service="${1:-gateway}"
    [ "$#" -gt 0 ] && shift
    exec node "dist/apps/$service/src/main.js" "$@"
    ;;
  jumbe | cli)
    shift
    exec node dist/apps/cli/src/main.js "$@"
    ;;
  *)
    exec "$@"
    ;;
esac
