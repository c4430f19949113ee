#!/usr/bin/env bash
# `npm run load:graph`: the k6 graph scenarios (load-tests/scripts/graph.js) against a gateway
# of either mode. Signs in through the mail outbox with a fresh address (a new tenant each
# run), hands k6 the access token (setup() makes one API key per VU and loads the tenant),
# prints a short table per scenario and leaves the JSON summary in
# load-tests/results/graph-summary.json. Exits non-zero when a threshold (or anything before) fails.
#
#   npm run load:graph                                  # the gateway on BASE_URL, mail in OUTBOX_DIR
#   npm run load:graph -- --start embedded              # starts `npm start` on a free port, stops it after
#   npm run load:graph -- --start distributed           # starts `npm run start:distributed` (scripts/infra)
#   PRESET=average npm run load:graph -- --start embedded
#
# With a server you run, allow the tenant enough graph requests (the per-credential quota stays
# low on purpose: the rate_limited scenario exceeds it), in both modes the same knobs:
#   GRAPH_RATE_LIMIT_PER_MINUTE=100000 npm start            # OUTBOX_DIR defaults to ./data/outbox
#   GRAPH_RATE_LIMIT_PER_MINUTE=100000 npm run start:distributed   # OUTBOX_DIR=./data-distributed/outbox
# Traffic goes to loopback only (load-tests/lib/target.js); every wait below is bounded.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
START=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --start) START="${2:-}"; shift 2 ;;
    --start=*) START="${1#--start=}"; shift ;;
    *) echo "load-graph: unknown argument $1 (--start embedded|distributed)" >&2; exit 2 ;;
  esac
done
[[ -z "$START" || "$START" == embedded || "$START" == distributed ]] ||
  { echo "load-graph: --start takes embedded or distributed" >&2; exit 2; }

BIN="$(bash scripts/tools/install.sh k6)"
export PATH="$BIN:$PATH"
PRESET="${PRESET:-smoke}"
NODE="${NODE:-node}"
RESULTS_DIR="${RESULTS_DIR:-$ROOT/load-tests/results}"
free_port() { "$NODE" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
json() { # json <field> : reads one field of the JSON document on stdin
  "$NODE" -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=JSON.parse(s)[process.argv[1]];if(v===undefined)process.exit(1);console.log(v)})' "$1"
}

SERVER="" WORK="" LOG=""
stop_server() {
  [[ -n "$SERVER" ]] || return 0
  # The server runs in its own session (setsid): its process group is npm and its children.
  # start:distributed stops its services and scripts/infra on SIGTERM, within its own bounds.
  kill -TERM -- "-$SERVER" 2>/dev/null || true
  for _ in $(seq 1 90); do kill -0 -- "-$SERVER" 2>/dev/null || break; sleep 1; done
  kill -KILL -- "-$SERVER" 2>/dev/null || true
  SERVER=""
}
cleanup() {
  local rc=$?
  stop_server
  if [[ $rc -ne 0 && -n "$LOG" && -f "$LOG" ]]; then echo "load-graph: last server log lines:" >&2; tail -n 30 "$LOG" >&2; fi
  if [[ -n "$WORK" ]]; then rm -rf "$WORK"; fi # (a false test here would be the exit status)
}
trap cleanup EXIT

if [[ -n "$START" ]]; then
  WORK="$(mktemp -d)"
  LOG="$WORK/server.log"
  PORT="$(free_port)"
  BASE_URL="http://127.0.0.1:$PORT"
  OUTBOX_DIR="$WORK/outbox"
  # The same knobs in both modes: start:distributed hands them to the services.
  export GRAPH_RATE_LIMIT_PER_MINUTE="${GRAPH_RATE_LIMIT_PER_MINUTE:-100000}"
  export GRAPH_RATE_LIMIT_PER_CREDENTIAL_PER_MINUTE="${GRAPH_RATE_LIMIT_PER_CREDENTIAL_PER_MINUTE:-600}"
  export LOG_LEVEL="${LOG_LEVEL:-warn}"
  if [[ "$START" == embedded ]]; then
    PORT="$PORT" METRICS_PORT=0 HOST=127.0.0.1 DATA_DIR="$WORK" setsid npm start >"$LOG" 2>&1 &
  else
    PORT="$PORT" DATA_DIR="$WORK" KG_SERVICES_BASE_PORT="${KG_SERVICES_BASE_PORT:-18400}" \
      setsid npm run start:distributed >"$LOG" 2>&1 &
  fi
  SERVER=$!
  echo "load-graph: starting the $START mode on $BASE_URL (log $LOG)"
else
  BASE_URL="${BASE_URL:-http://127.0.0.1:8080}"
  OUTBOX_DIR="${OUTBOX_DIR:-$ROOT/data/outbox}"
fi
BASE_URL="${BASE_URL%/}"
API="$BASE_URL/api/v1"

for i in $(seq 1 300); do
  curl -fsS -o /dev/null --max-time 2 "$BASE_URL/readyz" 2>/dev/null && break
  [[ -z "$SERVER" ]] || kill -0 "$SERVER" 2>/dev/null || { echo "load-graph: the server exited during start-up" >&2; exit 1; }
  [[ $i -lt 300 ]] || { echo "load-graph: $BASE_URL not ready after 300 s" >&2; exit 1; }
  sleep 1
done

# Sign in with a fresh address (a new tenant) through the outbox.
EMAIL="load-graph-$(date +%s)-$RANDOM@example.com"
before="$(date +%s%N)"
curl -fsS --max-time 10 -X POST "$API/auth/magic-link" -H 'content-type: application/json' \
  -d "{\"email\":\"$EMAIL\"}" >/dev/null
MAIL=""
for _ in $(seq 1 40); do
  MAIL="$(grep -l "\"$EMAIL\"" "$OUTBOX_DIR"/*.json 2>/dev/null | head -n 1 || true)"
  [[ -n "$MAIL" ]] && break
  sleep 0.5
done
[[ -n "$MAIL" ]] || { echo "load-graph: no sign-in mail to $EMAIL in $OUTBOX_DIR (set OUTBOX_DIR)" >&2; exit 1; }
TOKEN="$(json token <"$MAIL")"
ACCESS="$(curl -fsS --max-time 10 -X POST "$API/auth/magic-link/verify" -H 'content-type: application/json' \
  -d "{\"token\":\"$TOKEN\"}" | json access_token)"
echo "load-graph: signed in as $EMAIL after $(( ($(date +%s%N) - before) / 1000000 )) ms; preset $PRESET"

mkdir -p "$RESULTS_DIR"
set +e
ACCESS_TOKEN="$ACCESS" k6 run --quiet -e BASE_URL="$BASE_URL" -e PRESET="$PRESET" \
  -e RESULTS_DIR="$RESULTS_DIR" load-tests/scripts/graph.js
K6_RC=$?
set -e
stop_server

SUMMARY="$RESULTS_DIR/graph-summary.json"
[[ -f "$SUMMARY" ]] && "$NODE" "$ROOT/scripts/tools/load-table.mjs" "$SUMMARY"
if [[ $K6_RC -ne 0 ]]; then
  echo "load-graph: k6 failed (exit $K6_RC: 99 means a threshold failed)" >&2
  exit "$K6_RC"
fi
echo "load-graph: thresholds held (summary: ${SUMMARY#"$ROOT"/})"
