#!/usr/bin/env bash
# Shared settings of scripts/infra (sourced, never run): non-default loopback ports, state
# and logs under KG_INFRA_DIR, downloads cached under KG_CACHE_DIR, and helpers for
# installing Debian packages, locking and waiting for a server to come up.
set -euo pipefail

KG_PG_PORT="${KG_PG_PORT:-55432}"
KG_REDIS_PORT="${KG_REDIS_PORT:-56379}"
KG_KAFKA_PORT="${KG_KAFKA_PORT:-59092}"
KG_KAFKA_CONTROLLER_PORT="${KG_KAFKA_CONTROLLER_PORT:-59093}"
KG_MINIO_PORT="${KG_MINIO_PORT:-59000}"
KG_MINIO_CONSOLE_PORT="${KG_MINIO_CONSOLE_PORT:-59001}"
KG_QDRANT_PORT="${KG_QDRANT_PORT:-56333}"
KG_QDRANT_GRPC_PORT="${KG_QDRANT_GRPC_PORT:-56334}"
# Local-only test credentials of the loopback MinIO (never used outside this machine).
KG_MINIO_USER="${KG_MINIO_USER:-kg-minio}"
KG_MINIO_PASSWORD="${KG_MINIO_PASSWORD:-kg-minio-local-secret}"
KG_INFRA_DIR="${KG_INFRA_DIR:-/tmp/kg-infra}"
KG_CACHE_DIR="${KG_CACHE_DIR:-$HOME/.cache/kg-infra}"
KG_LOG_DIR="$KG_INFRA_DIR/logs"
# shellcheck disable=SC2034 # used by the scripts that source this file
INFRA_SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export KG_PG_PORT KG_REDIS_PORT KG_KAFKA_PORT KG_KAFKA_CONTROLLER_PORT KG_MINIO_PORT KG_MINIO_CONSOLE_PORT KG_MINIO_USER
export KG_QDRANT_PORT KG_QDRANT_GRPC_PORT
export KG_MINIO_PASSWORD KG_INFRA_DIR KG_CACHE_DIR

mkdir -p "$KG_INFRA_DIR" "$KG_LOG_DIR" "$KG_CACHE_DIR"
chmod 755 "$KG_INFRA_DIR" # the postgres OS user must reach its data and socket dirs

log() { echo "infra: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# show_log FILE [LINES]: the tail of a log, for loud failures.
show_log() {
  [ -f "$1" ] || { log "(no log at $1)"; return 0; }
  log "---- last ${2:-40} lines of $1 ----"
  tail -n "${2:-40}" "$1" >&2 || true
  log "---- end of $1 ----"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# wait_for_port PORT TIMEOUT_S LOGFILE NAME [PID]: waits until 127.0.0.1:PORT accepts
# connections; fails loudly (with the log's tail) on timeout or when PID has died.
wait_for_port() {
  local port=$1 timeout=$2 logfile=$3 name=$4 pid=${5:-} deadline=$((SECONDS + $2))
  until port_open "$port"; do
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
      log "$name (pid $pid) exited before opening port $port"
      show_log "$logfile"
      return 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      log "$name did not open port $port within ${timeout}s"
      show_log "$logfile"
      return 1
    fi
    sleep 0.2
  done
}

# with_lock NAME: takes an exclusive lock (fd 9) for the rest of the calling script, so
# concurrent start/stop calls of one service run one after the other. Daemons started while
# holding it must get `9>&-` so that they do not inherit (and keep) the lock.
with_lock() {
  exec 9>"$KG_INFRA_DIR/.$1.lock"
  flock -w 600 9 || die "timed out waiting for the $1 lock ($KG_INFRA_DIR/.$1.lock)"
}

# apt_install PACKAGE...: installs Debian packages quietly, one apt at a time on the machine;
# refreshes the package lists when they are missing or the first attempt fails.
apt_install() {
  local out="$KG_LOG_DIR/apt.log" opts=(-y -qq --no-install-recommends -o DPkg::Lock::Timeout=600)
  command -v apt-get >/dev/null || die "apt-get not found: install $* yourself"
  log "installing $* (apt-get, output in $out)"
  (
    flock -w 900 8 || exit 1
    export DEBIAN_FRONTEND=noninteractive
    if ! compgen -G "/var/lib/apt/lists/*_Packages*" >/dev/null; then
      apt-get update -qq >>"$out" 2>&1
    fi
    apt-get install "${opts[@]}" "$@" >>"$out" 2>&1 \
      || { apt-get update -qq >>"$out" 2>&1 && apt-get install "${opts[@]}" "$@" >>"$out" 2>&1; }
  ) 8>/var/lock/kg-infra-apt.lock || { log "apt-get install $* failed"; show_log "$out"; return 1; }
}
