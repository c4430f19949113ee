#!/usr/bin/env bash
# `npm run test:k8s`: the Helm chart on a real single-node Kubernetes (scripts/k8s), end to end.
#   1. the cluster: built once (build.sh, cached), brought up (up.sh);
#   2. the images: the service image (scripts/tools/build-image.sh) as two tags, ci-1 and ci-2
#      (the upgrade's), and the test servers' images (images-infra.sh), imported into containerd;
#   3. the test servers (deploy/test-infra: PostgreSQL, Redis, Kafka, MinIO) started and Ready;
#   4. scripts/k8s/test.ts, inside the cluster's network namespace: the README's install block,
#      helm test, the e2e smoke pass, the k6 graph smoke, helm upgrade under load, faults,
#      helm uninstall (see its header);
#   5. the cluster stopped and removed (down.sh), also on failure; KG_K8S_KEEP=1 keeps it.
# Starts everything it needs and fails loudly when anything is missing (run as root: it makes
# network and mount namespaces).
#   bash scripts/k8s/test.sh --prepare   steps 1-3 only, the cluster left running: CI prepares it
#                                        while other suites run; the test then finds it ready
set -euo pipefail
prepare_only=0
[[ "${1:-}" == --prepare ]] && prepare_only=1
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
source scripts/k8s/lib.sh
started=$SECONDS
current_step=""
step() { current_step="$*"; log "== $* (+$((SECONDS - started)) s)"; }
# The chart test's own output, kept to repeat its failure after the cluster's logs: CI shows a
# long lane's tail, and the cause must be in it.
test_out="$(mktemp)"

finish() {
  local rc=$?
  if [[ $rc -ne 0 && -d "$K8S_STATE/logs" ]]; then
    log "FAILED (exit $rc); pods and the last lines of the cluster's logs follow"
    kctl get pods -A -o wide 2>/dev/null || true
    kctl -n kg get events --sort-by=.lastTimestamp 2>/dev/null | tail -n 30 || true
    for pod in $(kctl -n kg get pods -o name 2>/dev/null); do
      echo "--- $pod (last log lines)"; kctl -n kg logs "$pod" --all-containers --tail=15 2>/dev/null || true
    done
    for f in "$K8S_STATE"/logs/*.log; do echo "--- $f"; tail -n 15 "$f"; done
  fi
  if [[ "${KG_K8S_KEEP:-}" != 1 && ($prepare_only == 0 || $rc -ne 0) ]]; then bash scripts/k8s/down.sh || rc=1; fi
  if [[ $rc -ne 0 ]]; then
    log "FAILED in: $current_step"
    # The test's failures: its own FAIL line, vitest's failed tests and k6's crossed thresholds.
    grep -E 'k8s-test: FAIL|FAIL |AssertionError|Error:|✗|thresholds? .*(crossed|failed)|level=error' "$test_out" | tail -n 25 >&2 || true
    echo "--- the test's last lines" >&2
    tail -n 15 "$test_out" >&2
  fi
  rm -f "$test_out"
  log "test:k8s done in $((SECONDS - started)) s (exit $rc)"
  exit $rc
}
trap finish EXIT

step "the cluster (scripts/k8s/build.sh, up.sh)"
bash scripts/k8s/up.sh
step "tools: helm, k6 (scripts/tools/install.sh), Node.js 24 (scripts/node24.sh)"
TOOLS="$(bash scripts/tools/install.sh helm k6)"
# Installed here, on the host's network: the test itself runs in the cluster's namespace, offline.
scripts/node24.sh node --version >/dev/null
step "images: the service image (ci-1, ci-2) and the test servers'"
bash scripts/k8s/images.sh app ci-1 ci-2
bash scripts/k8s/images.sh infra
bash scripts/k8s/images.sh tests
step "the test servers (deploy/test-infra)"
kctl apply -f deploy/test-infra/manifests/ >/dev/null
for s in $(kctl -n kg-infra get statefulsets -o name); do
  kctl -n kg-infra rollout status "$s" --timeout=300s >/dev/null
done
if ((prepare_only)); then
  step "prepared: the cluster stays up for the test (npm run test:k8s)"
  exit 0
fi
step "the chart: install, helm test, e2e smoke, k6 smoke, upgrade, faults, uninstall (scripts/k8s/test.ts)"
in_net env PATH="$K8S_BIN:$TOOLS:$PATH" KUBECONFIG="$K8S_STATE/pki/admin.kubeconfig" KG_K8S_NODE_IP="$K8S_NODE_IP" \
  scripts/node24.sh tsx scripts/k8s/test.ts 2>&1 | tee "$test_out"
