#!/usr/bin/env bash
# Lints and renders the Helm chart with default and example values (helm from install.sh).
# No cluster and no Kubernetes JSON schemas are reachable here, so manifests are checked
# by `helm lint --strict` (including values.schema.json) and `helm template`, not kubeconform.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="$(bash "$root/scripts/tools/install.sh" helm)"
chart="$root/deploy/helm/knowledge-graph"
required=(--set postgres.url=postgres://kg:kg@db:5432/kg --set secrets.internalTokenSecret=0123456789abcdef0123456789abcdef
  --set secrets.apiKeyPepper=0123456789abcdef0123456789abcdef --set 'secrets.authSigningKey={"kty":"OKP"}')
"$BIN/helm" lint --strict "$chart" "${required[@]}"
"$BIN/helm" lint --strict "$chart" -f "$chart/values-example.yaml"
out="$(mktemp)"
"$BIN/helm" template kg "$chart" "${required[@]}" >"$out"
"$BIN/helm" template kg "$chart" -f "$chart/values-example.yaml" >>"$out"
echo "rendered $(grep -c '^kind:' "$out") manifests: $(grep '^kind:' "$out" | sort | uniq -c | tr '\n' ' ')"
