#!/usr/bin/env bash
# Installs helm and k6 with the Go toolchain (Go module proxy), cached under
# ${KG_TOOLS_DIR:-$HOME/.cache/kg-tools}/bin. Prints that folder. Idempotent.
set -euo pipefail
HELM_VERSION="${HELM_VERSION:-v3.22.0}"
K6_VERSION="${K6_VERSION:-v1.8.1}"
BIN="${KG_TOOLS_DIR:-$HOME/.cache/kg-tools}/bin"
mkdir -p "$BIN"
export GOBIN="$BIN"
want="${1:-all}"
if [[ "$want" == all || "$want" == helm ]] && ! "$BIN/helm" version --short 2>/dev/null | grep -q "${HELM_VERSION}"; then
  echo "tools: building helm $HELM_VERSION (go install, a few minutes on 2 cores)" >&2
  go install "helm.sh/helm/v3/cmd/helm@${HELM_VERSION}"
fi
if [[ "$want" == all || "$want" == k6 ]] && ! "$BIN/k6" version 2>/dev/null | grep -q "${K6_VERSION#v}"; then
  echo "tools: building k6 $K6_VERSION (go install)" >&2
  go install "go.k6.io/k6@${K6_VERSION}"
fi
echo "$BIN"
