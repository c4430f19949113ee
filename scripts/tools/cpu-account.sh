#!/usr/bin/env bash
# Where a command's CPU went, by kind of process: BSD process accounting (acct(2)) records
# every process that ends with its CPU time, whoever started it (the suites' servers, the
# brokers, the cluster's control plane and pods, probes), and a sampler notes each process's
# command line every 2 s to name it. Prints a table when the command ends, and keeps the raw
# records and the samples in the folder it names. Linux, as root (acct needs CAP_SYS_PACCT).
#
#   bash scripts/tools/cpu-account.sh -- bash .ci/run        # CI's run, on a clean clone
#   bash scripts/tools/cpu-account.sh -- npm run test:e2e
#
# A process still running when the command ends is not counted; a process that lives less
# than 2 s may be named by its executable only. Stop only this script (Ctrl-C): accounting
# is switched off on the way out.
set -euo pipefail
[[ "${1:-}" == -- ]] && shift
(($# > 0)) || { echo "usage: $0 -- COMMAND [ARGS…]" >&2; exit 2; }
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$(mktemp -d "${TMPDIR:-/tmp}/kg-cpu-account-XXXXXX")"
: >"$out/acct"
acct() { python3 -c 'import ctypes,os,sys; libc=ctypes.CDLL(None,use_errno=True); p=sys.argv[1].encode() if len(sys.argv)>1 else None; sys.exit(0 if libc.acct(p)==0 else os.strerror(ctypes.get_errno()))' "$@"; }
acct "$out/acct" || { echo "cpu-account: cannot switch on process accounting (root and a kernel with BSD_PROCESS_ACCT)" >&2; exit 1; }
# "time pid args" whenever a pid's command line is new.
(
  declare -A seen
  while true; do
    t=$(date +%s)
    while read -r pid args; do
      [[ "${seen[$pid]:-}" == "$args" ]] || { seen[$pid]=$args; echo "$t $pid $args"; }
    done < <(ps -eo pid=,args=)
    sleep 2
  done
) >"$out/samples" 2>/dev/null &
sampler=$!
finish() {
  local rc=$?
  acct || true
  kill "$sampler" 2>/dev/null || true
  python3 "$HERE/cpu-account.py" "$out/acct" "$out/samples" || true
  echo "cpu-account: records and samples in $out (exit $rc)"
  exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT TERM
start=$SECONDS
"$@"
echo "cpu-account: the command took $((SECONDS - start)) s"
