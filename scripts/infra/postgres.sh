#!/usr/bin/env bash
# PostgreSQL from Debian's packages, on 127.0.0.1:$KG_PG_PORT, data under $KG_INFRA_DIR/pg.
# Usage: postgres.sh start|stop|status. Idempotent; installs the server when missing.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
PGDATA="$KG_INFRA_DIR/pg/data"
SOCKET_DIR="$KG_INFRA_DIR/pg/socket"
LOGFILE="$KG_LOG_DIR/postgres.log"

pg_bin() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
  if [ -z "$dir" ] || [ ! -x "$dir/pg_ctl" ]; then
    apt_install postgresql
    dir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  fi
  echo "$dir"
}

as_pg() { runuser -u postgres -- "$@"; }

case "${1:-start}" in
  start)
    BIN=$(pg_bin)
    mkdir -p "$KG_INFRA_DIR/pg" "$SOCKET_DIR"
    chown -R postgres:postgres "$KG_INFRA_DIR/pg"
    touch "$LOGFILE" && chown postgres:postgres "$LOGFILE"
    if [ ! -f "$PGDATA/PG_VERSION" ]; then
      as_pg "$BIN/initdb" -D "$PGDATA" -U postgres -A trust --no-sync >"$KG_LOG_DIR/initdb.log" 2>&1
    fi
    if as_pg "$BIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; then
      log "postgres already running on $KG_PG_PORT"
    else
      as_pg "$BIN/pg_ctl" -D "$PGDATA" -l "$LOGFILE" -w -t 60 start \
        -o "-p $KG_PG_PORT -k $SOCKET_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" >/dev/null
    fi
    wait_for_port "$KG_PG_PORT" 60 "$LOGFILE" postgres
    as_pg "$BIN/psql" -h "$SOCKET_DIR" -p "$KG_PG_PORT" -U postgres -d postgres -qAt -v ON_ERROR_STOP=1 >/dev/null <<SQL
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'kg') THEN CREATE ROLE kg LOGIN PASSWORD 'kg' CREATEDB; END IF;
END \$\$;
SELECT 'CREATE DATABASE kg OWNER kg' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'kg') \gexec
SQL
    log "postgres ready: postgres://kg:kg@127.0.0.1:$KG_PG_PORT/kg"
    ;;
  stop)
    BIN=$(pg_bin)
    if [ -f "$PGDATA/PG_VERSION" ] && as_pg "$BIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; then
      as_pg "$BIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null
      log "postgres stopped"
    fi
    ;;
  status)
    port_open "$KG_PG_PORT" && echo "postgres: up ($KG_PG_PORT)" || { echo "postgres: down"; exit 1; }
    ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
