#!/usr/bin/env bash
# Validates the Helm chart offline:
#   1. helm lint --strict with the default values, values-example.yaml and ci/*-values.yaml
#      (values.schema.json is enforced by lint and template), for each Kubernetes version;
#   2. helm template | kubeconform -strict against the Kubernetes JSON schemas of the oldest
#      supported and the newest shipped Kubernetes version (no schema may be missing);
#   3. helm template | check-manifests.mjs: the chart's own rules (hardening, probes, only
#      the gateway exposed, secrets only where needed, migrations hook order and least
#      privilege (DATABASE_URL its only secret), helm test,
#      metrics on their own port that no Ingress routes and only named scrapers reach, the
#      graph's headless Service of Ready pods behind the gateway's GRAPH_REPLICAS_DNS);
#   4. helm template | check-chart-env.ts: each service's own zod config schema accepts the
#      env the chart gives its container (Deployments and the migrations Job);
#   5. values the schema must reject are rejected, and values the templates must refuse
#      (the in-process vector index with more than one search replica) fail to render.
# Tools and schemas come from scripts/tools/install.sh (Go module proxy and PyPI only);
# the env check needs the repository's node_modules (npm ci).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CHART="$ROOT/deploy/helm/knowledge-graph"
BIN="$(bash "$ROOT/scripts/tools/install.sh" helm kubeconform k8s-schemas)" || exit 1
SCHEMAS="$(dirname "$BIN")/kubernetes-json-schema"
KUBE_VERSIONS="${KG_KUBE_VERSIONS:-1.27.0 1.37.0}"
export PATH="$BIN:$PATH"

passed=0 failed=0
step() { # step <description> <command…>
  local what=$1 out
  shift
  if out=$("$@" 2>&1); then
    passed=$((passed + 1)); echo "ok   $what"
    echo "$out" | grep -E '^(Summary|check-manifests|check-chart-env):' | sed 's/^/     /'
  else
    failed=$((failed + 1)); echo "FAIL $what"; echo "$out" | sed 's/^/     /'
  fi
}
# The Secrets a values file says exist already (existingSecret: <name>, and the
# per-service names under internalKeys.existingSecrets).
existing() {
  [[ -z "$1" ]] && return
  sed -n 's/^ *existingSecret: *\([A-Za-z0-9.-]\{1,\}\).*/\1/p' "$1"
  sed -n '/^  existingSecrets:/,/^  [a-zA-Z]/s/^    [a-z-]*: *\([A-Za-z0-9.-]\{1,\}\).*/\1/p' "$1"
}
render() { # render <kube version> [values file]
  helm template kg "$CHART" --namespace kg --kube-version "$1" ${2:+-f "$2"}
}
conform() { render "$@" | kubeconform -strict -summary -kubernetes-version "$1" -schema-location "$SCHEMAS"; }
# shellcheck disable=SC2046
rules() { render "$@" | node "$ROOT/scripts/tools/check-manifests.mjs" $(existing "${2:-}"); }
# shellcheck disable=SC2317
service_env() { render "$@" | (cd "$ROOT" && scripts/node24.sh tsx scripts/tools/check-chart-env.ts); }
must_fail() { ! "$@"; }
# The default values: the services must refuse to start, naming what is missing.
defaults_refused() {
  local out
  out=$(service_env "$@" 2>&1) && return 1
  grep -q 'AUTH_SIGNING_KEY' <<<"$out" && grep -q 'DATABASE_URL' <<<"$out" && grep -q 'INTERNAL_SIGNING_KEY' <<<"$out" &&
    grep -q 'QDRANT_API_KEY' <<<"$out"
}
# refused <message part> <helm template args…>: rendering fails, naming what to change.
refused() {
  local want=$1 out
  shift
  out=$(helm template kg "$CHART" --kube-version "$latest" "$@" 2>&1) && return 1
  grep -qF -- "$want" <<<"$out" || { echo "$out"; return 1; }
}
# rules_catch <expected failure> <sed script> [-f values file] [helm template args…]: once the
# sed script has broken the rendered chart, the chart rules fail, and for the expected reason.
rules_catch() {
  local want=$1 script=$2 values="" out
  shift 2
  [[ "${1:-}" == -f ]] && values=$2
  # shellcheck disable=SC2046
  out=$(helm template kg "$CHART" --kube-version "$latest" "$@" | sed "$script" |
    node "$ROOT/scripts/tools/check-manifests.mjs" $(existing "$values") 2>&1) && return 1
  grep -qF -- "$want" <<<"$out" || { echo "$out"; return 1; }
}

echo "helm $(helm version --template '{{ .Version }}'), kubeconform $(kubeconform -v), schemas for $KUBE_VERSIONS"
for values in "" "$CHART/values-example.yaml" "$CHART"/ci/*-values.yaml; do
  label=${values:+${values#"$CHART"/}}
  label=${label:-default values}
  for v in $KUBE_VERSIONS; do
    step "helm lint --strict ($label, Kubernetes $v)" helm lint --strict "$CHART" --kube-version "$v" ${values:+-f "$values"}
    step "kubeconform -strict ($label, Kubernetes $v)" conform "$v" "$values"
  done
  step "chart rules ($label)" rules "${KUBE_VERSIONS##* }" "$values"
  if [[ -n "$values" ]]; then
    step "services accept the rendered env ($label)" service_env "${KUBE_VERSIONS##* }" "$values"
  else
    # The defaults hold no secrets or database URL (the chart never invents them): the
    # services must refuse to start and name what is missing.
    step "services refuse the incomplete default env" defaults_refused "${KUBE_VERSIONS##* }"
  fi
done

# values.schema.json must reject what values.yaml documents as invalid.
latest=${KUBE_VERSIONS##* }
step "schema rejects an unknown key" must_fail helm lint "$CHART" --set gateway.replica=2
step "schema rejects negative replicas" must_fail helm lint "$CHART" --set auth.replicas=-1
step "schema rejects a short pepper" must_fail helm lint "$CHART" --set secrets.apiKeyPepper=short
step "schema rejects an unknown mail transport" must_fail helm lint "$CHART" --set auth.mail.transport=sendmail
step "schema rejects a non-postgres URL" must_fail helm lint "$CHART" --set postgres.url=mysql://db/kg
step "schema rejects a private key among the public keys" must_fail helm lint "$CHART" \
  --set-json 'internalKeys.publicKeys.graph={"kty":"OKP","crv":"Ed25519","x":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","d":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}'
step "schema rejects an unknown service's key" must_fail helm lint "$CHART" --set internalKeys.existingSecrets.mailer=kg-mailer
step "schema rejects a SASL mechanism without credentials" must_fail helm lint "$CHART" --set kafka.sasl.mechanism=plain
step "schema rejects an unknown SASL mechanism" must_fail helm lint "$CHART" --set kafka.sasl.mechanism=gssapi
step "schema rejects replication factor 0" must_fail helm lint "$CHART" --set kafka.replicationFactor=0
step "schema rejects the metrics port on a service port" must_fail helm lint "$CHART" --set metrics.port=8080
step "schema rejects 0 trusted proxy hops behind the Ingress" must_fail helm lint "$CHART" --set ingress.trustedProxyHops=0
step "schema rejects an external Qdrant without its URL" must_fail helm lint "$CHART" --set qdrant.enabled=false
step "schema rejects an unknown vectors choice" must_fail helm lint "$CHART" --set search.vectors=memory
step "schema rejects a Qdrant digest that is no sha256" must_fail helm lint "$CHART" --set qdrant.image.digest=latest
step "schema rejects an unknown graph routing" must_fail helm lint "$CHART" --set gateway.graphRouting=sticky
# The in-process vector index lives in one pod: the templates refuse it with more than one replica.
step "chart refuses in-process vectors with 2 search replicas" refused "search.vectors=in-process" \
  --set search.vectors=in-process --set search.replicas=2
step "chart refuses in-process vectors when search autoscales past 1" refused "2 search replicas" \
  --set search.vectors=in-process --set search.autoscaling.enabled=true --set search.autoscaling.maxReplicas=2
# The chart rules catch an Ingress that would expose the metrics port.
step "rules reject an Ingress on the metrics port" must_fail sh -c \
  "helm template kg '$CHART' --kube-version $latest --set ingress.enabled=true | sed '/kind: Ingress/,\$ s/name: http\$/name: metrics/' | node '$ROOT/scripts/tools/check-manifests.mjs'"
# ... and a secret in the migrations Job, which reads the database settings only.
step "rules reject a secret in the migrations Job" must_fail sh -c \
  "helm template kg '$CHART' --kube-version $latest | sed 's/- name: LOG_LEVEL\$/- name: API_KEY_PEPPER/' | node '$ROOT/scripts/tools/check-manifests.mjs'"
# ... and a Qdrant that anyone may reach, or whose API key is not the one search sends.
step "rules reject a Qdrant NetworkPolicy that lets the gateway in" rules_catch "only the search pods" \
  '/name: kg-knowledge-graph-qdrant$/,/^---/ s/app.kubernetes.io\/component: search$/app.kubernetes.io\/component: gateway/' \
  --set qdrant.apiKey=dummy-qdrant-key
step "rules reject search sending another Qdrant key than Qdrant requires" rules_catch "is the key Qdrant requires" \
  '/name: kg-knowledge-graph-search$/,/^---/ s/key: QDRANT_API_KEY$/key: QDRANT_KEY/' -f "$CHART/values-example.yaml"
# ... and a gateway that would find the graph pods through the ClusterIP Service (one address),
# or a headless Service that lists pods before they are ready.
step "rules reject GRAPH_REPLICAS_DNS on the graph's ClusterIP Service" rules_catch "is the graph's headless Service" \
  's/value: "http:\/\/kg-knowledge-graph-graph-replicas:3002"/value: "http:\/\/kg-knowledge-graph-graph:3002"/'
step "rules reject a graph headless Service that publishes unready pods" rules_catch "publishes Ready pods only" \
  's/publishNotReadyAddresses: false/publishNotReadyAddresses: true/'
step "rules reject in-process vectors on 2 replicas (a template that missed it)" rules_catch "one replica only" \
  '/name: kg-knowledge-graph-search$/,/^---/ s/^  replicas: 1$/  replicas: 2/' -f "$CHART/ci/in-process-vectors-values.yaml"
# The chart's Qdrant container runs its rendered script: it refuses an empty API key (Qdrant
# would take requests with an empty api-key header) and otherwise execs the image's entry point.
qdrant_guard() {
  local dir script
  dir=$(mktemp -d)
  script=$(helm template kg "$CHART" --kube-version "$latest" -s templates/qdrant/statefulset.yaml |
    node -e "const y=require('$ROOT/node_modules/yaml');const s=y.parse(require('fs').readFileSync(0,'utf8'));process.stdout.write(s.spec.template.spec.containers[0].args[0])")
  printf '#!/bin/sh\necho entrypoint ran\n' >"$dir/entrypoint.sh" && chmod +x "$dir/entrypoint.sh"
  local empty ok=1
  if ! empty=$(cd "$dir" && QDRANT__SERVICE__API_KEY='' bash -c "$script" 2>&1) &&
    grep -q 'QDRANT__SERVICE__API_KEY is empty: set qdrant.apiKey' <<<"$empty" &&
    [[ "$(cd "$dir" && QDRANT__SERVICE__API_KEY=k bash -c "$script")" == "entrypoint ran" ]]; then
    ok=0
  fi
  rm -rf "$dir"
  return $ok
}
step "the chart's Qdrant refuses to start with an empty API key" qdrant_guard
step "kubeconform rejects an unknown field" must_fail sh -c \
  "helm template kg '$CHART' --kube-version $latest | sed 's/^\(  *\)imagePullPolicy: IfNotPresent/&\n\1imagePulPolicy: Always/' | kubeconform -strict -kubernetes-version $latest -schema-location '$SCHEMAS'"

echo "check-helm: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
