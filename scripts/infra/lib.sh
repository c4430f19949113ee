#!/usr/bin/env bash
# Shared settings of the infrastructure scripts: ports (non-default, so they never collide
# with servers already running), state under KG_INFRA_DIR, downloads cached in KG_CACHE_DIR.
set -euo pipefail
KG_PG_PORT="${KG_PG_PORT:-55432}"
KG_REDIS_PORT="${KG_REDIS_PORT:-56379}"
KG_KAFKA_PORT="${KG_KAFKA_PORT:-59092}"
KG_KAFKA_CONTROLLER_PORT="${KG_KAFKA_CONTROLLER_PORT:-59093}"
KG_INFRA_DIR="${KG_INFRA_DIR:-/tmp/kg-infra}"
KG_CACHE_DIR="${KG_CACHE_DIR:-$HOME/.cache/kg-infra}"
KG_LOG_DIR="$KG_INFRA_DIR/logs"
INFRA_SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$KG_INFRA_DIR" "$KG_LOG_DIR" "$KG_CACHE_DIR"

log() { echo "infra: $*" >&2; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# wait_for_port PORT SECONDS LOGFILE NAME: fails loudly with the log tail.
wait_for_port() {
  local port=$1 timeout=$2 logfile=$3 name=$4 waited=0
  until port_open "$port"; do
    sleep 0.5; waited=$((waited + 1))
    if [ "$waited" -ge $((timeout * 2)) ]; then
      log "$name did not open port $port within ${timeout}s; last log lines:"
      tail -n 40 "$logfile" >&2 || true
      return 1
    fi
  done
}

apt_install() {
  log "installing $* (apt)"
  if [ ! -f /var/lib/apt/lists/lock ] || [ -z "$(ls /var/lib/apt/lists 2>/dev/null | grep -v lock | head -1)" ]; then
    apt-get update -qq >"$KG_LOG_DIR/apt-update.log" 2>&1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >"$KG_LOG_DIR/apt-install.log" 2>&1 || {
    apt-get update -qq >"$KG_LOG_DIR/apt-update.log" 2>&1
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >"$KG_LOG_DIR/apt-install.log" 2>&1
  }
}
