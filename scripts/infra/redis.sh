#!/usr/bin/env bash
# Redis (Debian's redis-server, installed on first use) on 127.0.0.1:$KG_REDIS_PORT without
# persistence, daemonized; pid, log and working dir under $KG_INFRA_DIR.
# Usage: redis.sh start|stop|status   (idempotent: start when running is a no-op)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DIR="$KG_INFRA_DIR/redis"
LOGFILE="$KG_LOG_DIR/redis.log"
PIDFILE="$KG_INFRA_DIR/redis.pid"

# Prints the pid of our redis-server when it is alive.
redis_pid() {
  local pid
  pid=$(cat "$PIDFILE" 2>/dev/null || true)
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && grep -q redis-server "/proc/$pid/cmdline" 2>/dev/null \
    && echo "$pid"
}

cmd=${1:-}
case "$cmd" in
  start)
    command -v redis-server >/dev/null 2>&1 || apt_install redis-server
    with_lock redis
    mkdir -p "$DIR"
    if [ -z "$(redis_pid || true)" ]; then
      if port_open "$KG_REDIS_PORT"; then die "port $KG_REDIS_PORT is taken by another process (not $PIDFILE)"; fi
      redis-server --bind 127.0.0.1 --port "$KG_REDIS_PORT" --protected-mode yes \
        --save '' --appendonly no --daemonize yes --pidfile "$PIDFILE" --logfile "$LOGFILE" \
        --dir "$DIR" >"$KG_LOG_DIR/redis-start.log" 2>&1 9>&- \
        || { log "redis-server failed to start"; show_log "$KG_LOG_DIR/redis-start.log"; show_log "$LOGFILE"; exit 1; }
    fi
    wait_for_port "$KG_REDIS_PORT" 30 "$LOGFILE" redis
    ;;
  stop)
    with_lock redis
    pid=$(redis_pid || true)
    if [ -n "$pid" ]; then
      kill "$pid"
      for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      if kill -0 "$pid" 2>/dev/null; then log "redis did not stop in 10s: SIGKILL"; kill -9 "$pid"; fi
    fi
    rm -f "$PIDFILE"
    ;;
  status)
    if [ -n "$(redis_pid || true)" ] && port_open "$KG_REDIS_PORT"; then
      echo "redis: up (127.0.0.1:$KG_REDIS_PORT, pid $(redis_pid))"
    else
      echo "redis: down"; exit 1
    fi
    ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
