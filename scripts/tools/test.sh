#!/usr/bin/env bash
# npm test: the `unit` and `e2e` vitest projects side by side, in two vitest processes.
#
# In one process vitest runs a project whose files go one at a time (e2e: one shared server)
# in a group of its own, before or after the other projects, so on a 2-core machine the unit
# files waited ~7 minutes for the e2e files, which mostly wait on the server. Here the e2e
# run prints as it goes; the unit run's output is kept in a file and printed when both are
# done; the exit status is the first failure's. Arguments go to both (a file filter that
# matches nothing in one project is not a failure there). When the e2e run failed, its
# failures are printed again at the very end, so the tail of the output (all a CI summary
# may show) names them.
set -uo pipefail
cd "$(dirname "$0")/../.."

extra=()
[[ $# -gt 0 ]] && extra=(--passWithNoTests)
unit_log=$(mktemp -t kg-unit-tests-XXXXXX.log)
e2e_log=$(mktemp -t kg-e2e-tests-XXXXXX.log)

scripts/node24.sh vitest run --project unit "${extra[@]}" "$@" >"$unit_log" 2>&1 &
unit=$!
# Ctrl-C reaches both (one process group); a TERM to this script is passed on.
trap 'kill -TERM "$unit" 2>/dev/null' TERM

scripts/node24.sh vitest run --project e2e "${extra[@]}" "$@" 2>&1 | tee "$e2e_log"
e2e_status=${PIPESTATUS[0]}
wait "$unit"
unit_status=$?

echo
echo "── unit project (ran beside the e2e project) ──"
cat "$unit_log"
rm -f "$unit_log"
if ((e2e_status != 0)); then
  echo
  echo "── e2e project: its failures again ──"
  # vitest's summary of failed tests runs from its "Failed Tests" rule to the end.
  sed 's/\x1b\[[0-9;]*m//g' "$e2e_log" | sed -n '/Failed Tests\|Failed Suites\|Unhandled Errors/,$p'
fi
rm -f "$e2e_log"
echo "npm test: unit exit $unit_status, e2e exit $e2e_status"
if ((unit_status != 0)); then exit "$unit_status"; fi
exit "$e2e_status"
