#!/usr/bin/env bash
# Redis from Debian's packages, on 127.0.0.1:$KG_REDIS_PORT, without persistence.
# Usage: redis.sh start|stop|status. Idempotent; installs the server when missing.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
LOGFILE="$KG_LOG_DIR/redis.log"
PIDFILE="$KG_INFRA_DIR/redis.pid"

case "${1:-start}" in
  start)
    command -v redis-server >/dev/null 2>&1 || apt_install redis-server
    if port_open "$KG_REDIS_PORT"; then
      log "redis already running on $KG_REDIS_PORT"
    else
      redis-server --bind 127.0.0.1 --port "$KG_REDIS_PORT" --save '' --appendonly no --daemonize yes \
        --pidfile "$PIDFILE" --logfile "$LOGFILE" --dir "$KG_INFRA_DIR"
    fi
    wait_for_port "$KG_REDIS_PORT" 30 "$LOGFILE" redis
    log "redis ready: redis://127.0.0.1:$KG_REDIS_PORT"
    ;;
  stop)
    pid=$(cat "$PIDFILE" 2>/dev/null || true)
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill "$pid"
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      log "redis stopped"
    fi
    ;;
  status)
    port_open "$KG_REDIS_PORT" && echo "redis: up ($KG_REDIS_PORT)" || { echo "redis: down"; exit 1; }
    ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
