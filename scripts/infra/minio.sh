#!/usr/bin/env bash
# MinIO (S3-compatible object storage) on 127.0.0.1:$KG_MINIO_PORT, data under $KG_INFRA_DIR/minio.
# Built once from the Go module proxy with `go install` at a pinned version (cached under
# $KG_CACHE_DIR/minio/<version>); the root credentials are fixed local-only test values.
# Usage: minio.sh install|start|stop|status   (idempotent: start when running is a no-op)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# `go install github.com/minio/minio@latest` resolved to this pseudo-version (the module has no semver tags).
MINIO_VERSION="${KG_MINIO_VERSION:-v0.0.0-20260212201848-7aac2a2c5b7c}"
BIN_DIR="$KG_CACHE_DIR/minio/$MINIO_VERSION"
BIN="$BIN_DIR/minio"
DIR="$KG_INFRA_DIR/minio"
LOGFILE="$KG_LOG_DIR/minio.log"
PIDFILE="$KG_INFRA_DIR/minio.pid"

minio_pid() {
  local pid
  pid=$(cat "$PIDFILE" 2>/dev/null || true)
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && grep -q minio "/proc/$pid/cmdline" 2>/dev/null && echo "$pid"
}

install_minio() {
  [ -x "$BIN" ] && return 0
  (
    flock -w 1800 8 || die "timed out waiting for the MinIO build lock"
    [ -x "$BIN" ] && exit 0
    command -v go >/dev/null 2>&1 || die "go not found: MinIO is built with go install (install Go >= 1.24)"
    log "building MinIO $MINIO_VERSION with go install (once; output in $KG_LOG_DIR/minio-build.log)"
    mkdir -p "$BIN_DIR"
    GOBIN="$BIN_DIR" GOFLAGS=-buildvcs=false CGO_ENABLED=0 nice go install "github.com/minio/minio@$MINIO_VERSION" \
      >"$KG_LOG_DIR/minio-build.log" 2>&1 \
      || { log "go install github.com/minio/minio@$MINIO_VERSION failed"; show_log "$KG_LOG_DIR/minio-build.log"; exit 1; }
    [ -x "$BIN" ] || die "go install finished but $BIN is missing"
  ) 8>"$KG_CACHE_DIR/.minio-build.lock"
}

cmd=${1:-}
case "$cmd" in
  install) install_minio ;;
  start)
    install_minio
    with_lock minio
    mkdir -p "$DIR"
    if [ -z "$(minio_pid || true)" ]; then
      if port_open "$KG_MINIO_PORT"; then die "port $KG_MINIO_PORT is taken by another process (not $PIDFILE)"; fi
      MINIO_ROOT_USER="$KG_MINIO_USER" MINIO_ROOT_PASSWORD="$KG_MINIO_PASSWORD" MINIO_BROWSER=off \
        MINIO_UPDATE=off nohup "$BIN" server "$DIR" --address "127.0.0.1:$KG_MINIO_PORT" \
        --console-address "127.0.0.1:$KG_MINIO_CONSOLE_PORT" >"$LOGFILE" 2>&1 9>&- &
      echo $! >"$PIDFILE"
    fi
    wait_for_port "$KG_MINIO_PORT" 60 "$LOGFILE" minio "$(cat "$PIDFILE")"
    # Ready when the liveness endpoint answers (the port opens a little before).
    for _ in $(seq 1 100); do
      curl -fsS "http://127.0.0.1:$KG_MINIO_PORT/minio/health/live" >/dev/null 2>&1 && exit 0
      sleep 0.2
    done
    log "minio did not become live"; show_log "$LOGFILE"; exit 1
    ;;
  stop)
    with_lock minio
    pid=$(minio_pid || true)
    if [ -n "$pid" ]; then
      kill "$pid"
      for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      if kill -0 "$pid" 2>/dev/null; then log "minio did not stop in 10s: SIGKILL"; kill -9 "$pid"; fi
    fi
    rm -f "$PIDFILE"
    ;;
  status)
    if [ -n "$(minio_pid || true)" ] && port_open "$KG_MINIO_PORT"; then
      echo "minio: up (127.0.0.1:$KG_MINIO_PORT, pid $(minio_pid))"
    else
      echo "minio: down"; exit 1
    fi
    ;;
  *) echo "usage: $0 install|start|stop|status" >&2; exit 2 ;;
esac
