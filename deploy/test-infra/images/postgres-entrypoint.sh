#!/bin/bash
# Entry point of localhost/kg-postgres (scripts/k8s/images-infra.sh), run as the postgres
# user: on an empty data directory (PGDATA, on the pod's volume) initdb, then the role
# POSTGRES_USER with POSTGRES_PASSWORD owning the database POSTGRES_DB; then PostgreSQL on
# 0.0.0.0:5432 with password (scram-sha-256) authentication over TCP. Tuned for tests
# (fsync off): a test database, never a production one.
set -euo pipefail
BIN=/usr/lib/postgresql/15/bin
PGDATA="${PGDATA:-/var/lib/postgresql/data/pgdata}"
SOCKET_DIR=/var/run/postgresql
: "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is not set}"
user="${POSTGRES_USER:-kg}"
db="${POSTGRES_DB:-kg}"

if [[ ! -s "$PGDATA/PG_VERSION" ]]; then
  echo "kg-postgres: initialising $PGDATA (role $user, database $db)" >&2
  mkdir -p "$PGDATA"
  chmod 700 "$PGDATA"
  "$BIN/initdb" -D "$PGDATA" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
    --encoding=UTF8 --locale=C.UTF-8 --no-sync >/dev/null
  # Trust on the pod's private socket (setup, probes); passwords over TCP.
  printf '%s\n' 'local all all trust' 'host all all 0.0.0.0/0 scram-sha-256' \
    'host all all ::/0 scram-sha-256' >"$PGDATA/pg_hba.conf"
  "$BIN/pg_ctl" -D "$PGDATA" -w -t 60 -o "-c listen_addresses='' -k $SOCKET_DIR" start >/dev/null
  "$BIN/psql" -h "$SOCKET_DIR" -U postgres -d postgres -qAt -v ON_ERROR_STOP=1 \
    --set=u="$user" --set=p="$POSTGRES_PASSWORD" --set=d="$db" <<'SQL'
CREATE ROLE :"u" WITH LOGIN PASSWORD :'p' NOSUPERUSER CREATEDB;
CREATE DATABASE :"d" OWNER :"u";
SQL
  "$BIN/pg_ctl" -D "$PGDATA" -m fast -w -t 60 stop >/dev/null
fi

exec "$BIN/postgres" -D "$PGDATA" -k "$SOCKET_DIR" -c listen_addresses='*' -c port=5432 \
  -c max_connections="${POSTGRES_MAX_CONNECTIONS:-300}" -c fsync=off -c synchronous_commit=off \
  -c full_page_writes=off -c log_min_messages=warning
