#!/usr/bin/env bash
# Qdrant (vector search for the search service) on 127.0.0.1:$KG_QDRANT_PORT (REST) and
# $KG_QDRANT_GRPC_PORT (gRPC), storage and snapshots under $KG_INFRA_DIR/qdrant, telemetry off.
# The binary is ../shared/bin/qdrant next to the repository (see ../shared/bin/README.md);
# QDRANT_BIN names another one (your own build, or one copied out of the official image).
# Usage: qdrant.sh start|stop|status   (idempotent: start when running is a no-op)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ROOT="$(cd "$INFRA_SCRIPTS/../.." && pwd)"
BIN="${QDRANT_BIN:-$(dirname "$ROOT")/shared/bin/qdrant}"
DIR="$KG_INFRA_DIR/qdrant"
LOGFILE="$KG_LOG_DIR/qdrant.log"
PIDFILE="$KG_INFRA_DIR/qdrant.pid"
READY_URL="http://127.0.0.1:$KG_QDRANT_PORT/readyz"

qdrant_pid() {
  local pid
  pid=$(cat "$PIDFILE" 2>/dev/null || true)
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && grep -q qdrant "/proc/$pid/cmdline" 2>/dev/null && echo "$pid"
}

cmd=${1:-}
case "$cmd" in
  start)
    if [ ! -x "$BIN" ]; then
      die "no Qdrant binary at $BIN (expected ../shared/bin/qdrant beside the repository; set QDRANT_BIN=/path/to/qdrant to use your own, e.g. one built from github.com/qdrant/qdrant or copied from the qdrant/qdrant image)"
    fi
    with_lock qdrant
    mkdir -p "$DIR/storage" "$DIR/snapshots"
    if [ -z "$(qdrant_pid || true)" ]; then
      for port in "$KG_QDRANT_PORT" "$KG_QDRANT_GRPC_PORT"; do
        if port_open "$port"; then die "port $port is taken by another process (not $PIDFILE)"; fi
      done
      [ -f "$LOGFILE" ] && mv -f "$LOGFILE" "$KG_LOG_DIR/qdrant.prev.log"
      # Run from $DIR: Qdrant looks for config/ and static/ relative to its working directory.
      (
        cd "$DIR"
        QDRANT__SERVICE__HOST=127.0.0.1 \
          QDRANT__SERVICE__HTTP_PORT="$KG_QDRANT_PORT" QDRANT__SERVICE__GRPC_PORT="$KG_QDRANT_GRPC_PORT" \
          QDRANT__SERVICE__ENABLE_STATIC_CONTENT=false \
          QDRANT__STORAGE__STORAGE_PATH="$DIR/storage" QDRANT__STORAGE__SNAPSHOTS_PATH="$DIR/snapshots" \
          QDRANT__TELEMETRY_DISABLED=true QDRANT__LOG_LEVEL=WARN \
          exec nohup "$BIN" >"$LOGFILE" 2>&1 9>&-
      ) &
      echo $! >"$PIDFILE"
    fi
    pid=$(cat "$PIDFILE")
    wait_for_port "$KG_QDRANT_PORT" 60 "$LOGFILE" qdrant "$pid"
    # Ready when /readyz answers 200 (every shard loaded; the port opens a little before).
    for _ in $(seq 1 300); do
      curl -fsS "$READY_URL" >/dev/null 2>&1 && exit 0
      kill -0 "$pid" 2>/dev/null || { log "qdrant (pid $pid) exited while loading"; show_log "$LOGFILE"; exit 1; }
      sleep 0.2
    done
    log "qdrant did not become ready within 60s ($READY_URL)"; show_log "$LOGFILE"; exit 1
    ;;
  stop)
    with_lock qdrant
    pid=$(qdrant_pid || true)
    if [ -n "$pid" ]; then
      kill "$pid"
      for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      if kill -0 "$pid" 2>/dev/null; then log "qdrant did not stop in 15s: SIGKILL"; kill -9 "$pid"; fi
    fi
    rm -f "$PIDFILE"
    ;;
  status)
    if [ -n "$(qdrant_pid || true)" ] && curl -fsS "$READY_URL" >/dev/null 2>&1; then
      echo "qdrant: up (127.0.0.1:$KG_QDRANT_PORT, pid $(qdrant_pid))"
    else
      echo "qdrant: down"; exit 1
    fi
    ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
