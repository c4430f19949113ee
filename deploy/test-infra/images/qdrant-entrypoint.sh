#!/usr/bin/env bash
# Entry point of localhost/qdrant (scripts/k8s/images-infra.sh), as the official qdrant/qdrant
# image's ./entrypoint.sh: runs ./qdrant from /qdrant with the given arguments, forwards
# SIGTERM/SIGINT and, with QDRANT_ALLOW_RECOVERY_MODE=true, restarts it in recovery mode
# when it was killed before it had initialised (the marker QDRANT_INIT_FILE_PATH is missing).
_term() { kill -TERM "$QDRANT_PID" 2>/dev/null; }
_interrupt() { kill -INT "$QDRANT_PID" 2>/dev/null; }
trap _term SIGTERM
trap _interrupt SIGINT

./qdrant "$@" &
QDRANT_PID=$!
wait "$QDRANT_PID"
EXIT_CODE=$?
# A trapped signal ends `wait` early: wait for Qdrant itself to finish.
while kill -0 "$QDRANT_PID" 2>/dev/null; do
  wait "$QDRANT_PID"
  EXIT_CODE=$?
done

QDRANT_INIT_FILE_PATH="${QDRANT_INIT_FILE_PATH:-.qdrant-initialized}"
if [ "${QDRANT_ALLOW_RECOVERY_MODE:-}" = true ] && [ "$EXIT_CODE" != 0 ] && [ ! -f "$QDRANT_INIT_FILE_PATH" ]; then
  QDRANT__STORAGE__RECOVERY_MODE="Qdrant was killed during initialization. Most likely it's Out-of-Memory. Please check memory consumption, increase memory limit or remove some collections and restart" \
    ./qdrant "$@" &
  QDRANT_PID=$!
  wait "$QDRANT_PID"
  exit $?
fi
exit "$EXIT_CODE"
