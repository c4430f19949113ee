#!/usr/bin/env bash
# PostgreSQL (Debian's package, installed on first use) on 127.0.0.1:$KG_PG_PORT only, data
# under $KG_INFRA_DIR/pg owned by the postgres OS user, unix socket in $KG_INFRA_DIR/pg/socket.
# Tuned for tests (fsync off). Ensures role kg/kg (NOSUPERUSER CREATEDB) owning database kg.
# Usage: postgres.sh start|stop|status   (idempotent: start when running is a no-op)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
PGROOT="$KG_INFRA_DIR/pg"
PGDATA="$PGROOT/data"
SOCKET_DIR="$PGROOT/socket"
LOGFILE="$KG_LOG_DIR/postgres.log"

find_bin() { # newest /usr/lib/postgresql/*/bin with pg_ctl and initdb, or nothing
  local d found=""
  for d in $(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V); do
    if [ -x "$d/pg_ctl" ] && [ -x "$d/initdb" ]; then found=$d; fi
  done
  echo "$found"
}

pg_bin() {
  local dir
  dir=$(find_bin)
  if [ -z "$dir" ]; then
    apt_install postgresql
    dir=$(find_bin)
    [ -n "$dir" ] || die "postgresql installed but no pg_ctl/initdb under /usr/lib/postgresql/*/bin"
  fi
  echo "$dir"
}

as_pg() { runuser -u postgres -- "$@"; }
pg_running() { [ -f "$PGDATA/PG_VERSION" ] && as_pg "$BIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; }

cmd=${1:-}
case "$cmd" in
  start)
    BIN=$(pg_bin)
    id postgres >/dev/null 2>&1 || die "no postgres OS user (it comes with Debian's postgresql-common)"
    with_lock postgres
    mkdir -p "$PGDATA" "$SOCKET_DIR"
    chown postgres:postgres "$PGROOT" "$PGDATA" "$SOCKET_DIR"
    chmod 700 "$PGDATA"
    touch "$LOGFILE" && chown postgres:postgres "$LOGFILE"
    if [ ! -f "$PGDATA/PG_VERSION" ]; then
      as_pg "$BIN/initdb" -D "$PGDATA" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
        --encoding=UTF8 --locale=C.UTF-8 --no-sync >"$KG_LOG_DIR/initdb.log" 2>&1 \
        || { log "initdb failed"; show_log "$KG_LOG_DIR/initdb.log"; exit 1; }
    fi
    if ! pg_running; then
      # Password auth over TCP (as in a deployment), trust on the private socket for setup.
      printf '%s\n' 'local all all trust' 'host all all 127.0.0.1/32 scram-sha-256' \
        'host all all ::1/128 scram-sha-256' >"$PGDATA/pg_hba.conf"
      chown postgres:postgres "$PGDATA/pg_hba.conf"
      as_pg "$BIN/pg_ctl" -D "$PGDATA" -l "$LOGFILE" -w -t 60 start -o "-p $KG_PG_PORT -k $SOCKET_DIR \
-c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off \
-c max_connections=200" >"$KG_LOG_DIR/pg_ctl.log" 2>&1 9>&- \
        || { log "postgres failed to start"; show_log "$LOGFILE"; exit 1; }
    fi
    wait_for_port "$KG_PG_PORT" 60 "$LOGFILE" postgres
    # The role and database, every start (cheap, and repairs a half-finished first run).
    as_pg "$BIN/psql" -h "$SOCKET_DIR" -p "$KG_PG_PORT" -U postgres -d postgres -qAt -v ON_ERROR_STOP=1 \
      >"$KG_LOG_DIR/pg-setup.log" 2>&1 <<'SQL' || { log "creating role/database kg failed"; show_log "$KG_LOG_DIR/pg-setup.log"; exit 1; }
SELECT 'CREATE ROLE kg' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'kg') \gexec
ALTER ROLE kg WITH LOGIN PASSWORD 'kg' NOSUPERUSER CREATEDB;
SELECT 'CREATE DATABASE kg OWNER kg' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'kg') \gexec
SQL
    ;;
  stop)
    BIN=$(find_bin)
    [ -n "$BIN" ] || exit 0 # never installed, so not running
    with_lock postgres
    if pg_running; then
      as_pg "$BIN/pg_ctl" -D "$PGDATA" -m fast -w -t 60 stop >"$KG_LOG_DIR/pg_ctl.log" 2>&1 \
        || { log "postgres did not stop"; show_log "$LOGFILE"; exit 1; }
    fi
    ;;
  status)
    BIN=$(find_bin)
    if [ -n "$BIN" ] && pg_running && port_open "$KG_PG_PORT"; then
      echo "postgres: up (127.0.0.1:$KG_PG_PORT, data $PGDATA)"
    else
      echo "postgres: down"; exit 1
    fi
    ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
