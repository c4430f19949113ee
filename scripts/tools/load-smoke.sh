#!/usr/bin/env bash
# Smoke load test of the embedded server: starts `npm start` on a free loopback port with a
# fresh DATA_DIR, signs in through the mail outbox, creates an API key, runs
# load-tests/scripts/nodes.js with the smoke preset (PRESET overrides), stops the server,
# and exits non-zero when a k6 threshold (or anything before it) fails.
# Traffic goes to 127.0.0.1 only; every wait below is bounded.
#
#   bash scripts/tools/load-smoke.sh            # results in load-tests/results/nodes-summary.json
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
BIN="$(bash scripts/tools/install.sh k6)"
export PATH="$BIN:$PATH"
PRESET="${PRESET:-smoke}"
NODE="${NODE:-node}"

json() { # json <field> : reads one field of the JSON document on stdin
  "$NODE" -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=JSON.parse(s)[process.argv[1]];if(v===undefined)process.exit(1);console.log(v)})' "$1"
}

PORT="${KG_SMOKE_PORT:-$("$NODE" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')}"
BASE_URL="http://127.0.0.1:$PORT"
API="$BASE_URL/api/v1"
DATA_DIR="$(mktemp -d)"
LOG="$DATA_DIR/server.log"
SERVER=""

stop_server() {
  [[ -n "$SERVER" ]] || return 0
  # The server runs in its own session (setsid), so its process group is npm and its children.
  kill -TERM -- "-$SERVER" 2>/dev/null || true
  for _ in $(seq 1 25); do kill -0 -- "-$SERVER" 2>/dev/null || break; sleep 1; done
  kill -KILL -- "-$SERVER" 2>/dev/null || true
  SERVER=""
}
cleanup() {
  local rc=$?
  stop_server
  if [[ $rc -ne 0 && -f "$LOG" ]]; then echo "load-smoke: last server log lines:" >&2; tail -n 20 "$LOG" >&2; fi
  rm -rf "$DATA_DIR"
}
trap cleanup EXIT

echo "load-smoke: starting the embedded server on $BASE_URL (DATA_DIR=$DATA_DIR)"
PORT="$PORT" METRICS_PORT=0 HOST=127.0.0.1 DATA_DIR="$DATA_DIR" LOG_LEVEL=warn setsid npm start >"$LOG" 2>&1 &
SERVER=$!

for i in $(seq 1 120); do
  curl -fsS -o /dev/null --max-time 2 "$BASE_URL/readyz" 2>/dev/null && break
  kill -0 "$SERVER" 2>/dev/null || { echo "load-smoke: the server exited during start-up" >&2; exit 1; }
  [[ $i -lt 120 ]] || { echo "load-smoke: not ready after 120 s" >&2; exit 1; }
  sleep 1
done
echo "load-smoke: ready after ${i}s"

# Sign in through the outbox, then create the API key k6 uses.
curl -fsS --max-time 10 -X POST "$API/auth/magic-link" -H 'content-type: application/json' \
  -d '{"email":"load-smoke@example.com"}' >/dev/null
for _ in $(seq 1 20); do compgen -G "$DATA_DIR/outbox/*.json" >/dev/null && break; sleep 0.5; done
MAIL="$(ls -t "$DATA_DIR"/outbox/*.json 2>/dev/null | head -n 1)"
[[ -n "$MAIL" ]] || { echo "load-smoke: no sign-in mail in $DATA_DIR/outbox" >&2; exit 1; }
TOKEN="$(json token <"$MAIL")"
ACCESS="$(curl -fsS --max-time 10 -X POST "$API/auth/magic-link/verify" -H 'content-type: application/json' \
  -d "{\"token\":\"$TOKEN\"}" | json access_token)"
API_KEY="$(curl -fsS --max-time 10 -X POST "$API/auth/api-keys" -H "authorization: Bearer $ACCESS" \
  -H 'content-type: application/json' -d '{"name":"load-smoke"}' | json key)"
echo "load-smoke: signed in, API key ${API_KEY%%.*}.…"

mkdir -p load-tests/results
set +e
k6 run --quiet -e BASE_URL="$BASE_URL" -e API_KEY="$API_KEY" -e PRESET="$PRESET" \
  -e RESULTS_DIR="$ROOT/load-tests/results" load-tests/scripts/nodes.js
K6_RC=$?
set -e
stop_server

SUMMARY="load-tests/results/nodes-summary.json"
if [[ -f "$SUMMARY" ]]; then
  "$NODE" -e '
    const m = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).metrics;
    const d = m.http_req_duration.values;
    console.log(`load-smoke: ${m.http_reqs.values.count} requests, p95 ${d["p(95)"].toFixed(1)} ms, ` +
      `p99 ${d["p(99)"].toFixed(1)} ms, failed ${m.http_req_failed.values.passes}, ` +
      `checks ${(m.checks.values.rate * 100).toFixed(2)}%`);' "$SUMMARY"
fi
if [[ $K6_RC -ne 0 ]]; then
  echo "load-smoke: k6 failed (exit $K6_RC: 99 means a threshold failed)" >&2
  exit "$K6_RC"
fi
echo "load-smoke: thresholds held"
