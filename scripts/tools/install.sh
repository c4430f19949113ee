#!/usr/bin/env bash
# Installs the deployment and load-test tools (helm, kubeconform, k6) with the Go toolchain,
# pinned, into ${KG_TOOLS_DIR:-$HOME/.cache/kg-tools}/bin, plus the Kubernetes JSON schemas
# kubeconform validates against (k8s-schemas, into $KG_TOOLS_DIR/kubernetes-json-schema),
# and prints the bin directory. Idempotent: whatever is already there at its pinned version
# is skipped. Needs only the Go module proxy and PyPI (no GitHub release downloads).
#
#   export PATH="$(bash scripts/tools/install.sh):$PATH"
#   bash scripts/tools/install.sh helm      # just one tool
set -euo pipefail

HELM_VERSION="${HELM_VERSION:-v3.22.0}"          # go list -m -versions helm.sh/helm/v3
KUBECONFORM_VERSION="${KUBECONFORM_VERSION:-v0.7.0}"  # go list -m -versions github.com/yannh/kubeconform
K6_VERSION="${K6_VERSION:-v1.8.1}"              # go list -m -versions go.k6.io/k6
# Kubernetes JSON schemas for kubeconform come from the PyPI package kubernetes-validate
# (it ships them for Kubernetes 1.25 to 1.37); converted to kubeconform's standalone layout.
K8S_SCHEMAS_PACKAGE="${K8S_SCHEMAS_PACKAGE:-kubernetes-validate==1.37.0}"
KUBE_VERSIONS="${KG_KUBE_VERSIONS:-1.27.0 1.37.0}"  # oldest the chart supports, newest shipped

TOOLS_DIR="${KG_TOOLS_DIR:-$HOME/.cache/kg-tools}"
BIN="$TOOLS_DIR/bin"
mkdir -p "$BIN"

command -v go >/dev/null || { echo "install.sh: the Go toolchain (go) is required" >&2; exit 1; }

# install <name> <module path of the main package> <version> [extra -ldflags]
install_tool() {
  local name=$1 pkg=$2 version=$3 ldflags="-s -w ${4:-}" stamp="$BIN/.$1.version"
  # The stamp records the version and the flags it was built with.
  if [[ -x "$BIN/$name" && -f "$stamp" && "$(cat "$stamp")" == "$version $ldflags" ]]; then
    echo "install.sh: $name $version already installed" >&2
    return
  fi
  echo "install.sh: building $name $version ($pkg) ..." >&2
  local start=$SECONDS
  GOBIN="$BIN" GOFLAGS="${GOFLAGS:-} -buildvcs=false" CGO_ENABLED=0 \
    go install -trimpath -ldflags "$ldflags" "$pkg@$version" >&2
  echo "$version $ldflags" >"$stamp"
  echo "install.sh: $name $version built in $((SECONDS - start))s" >&2
}

# helm's Makefile stamps its version and the Kubernetes version it renders for (that of its
# client-go, 0.N -> 1.N); a bare `go install` would leave v1.20 and fail kubeVersion checks.
helm_ldflags() {
  local gomod minor
  gomod=$(go mod download -json "helm.sh/helm/v3@$HELM_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
  minor=$(sed -n 's/^[[:space:]]*k8s.io\/client-go v0\.\([0-9]*\)\..*/\1/p' "$gomod")
  [[ -n "$minor" ]] || { echo "install.sh: cannot read helm's client-go version" >&2; exit 1; }
  local v=helm.sh/helm/v3
  echo "-X $v/internal/version.version=$HELM_VERSION -X $v/pkg/lint/rules.k8sVersionMajor=1" \
    "-X $v/pkg/lint/rules.k8sVersionMinor=$minor -X $v/pkg/chartutil.k8sVersionMajor=1" \
    "-X $v/pkg/chartutil.k8sVersionMinor=$minor"
}

# Schemas of each Kubernetes version in KUBE_VERSIONS, as <dir>/v<version>-standalone-strict/.
install_schemas() {
  local dest="$TOOLS_DIR/kubernetes-json-schema" stamp="$TOOLS_DIR/kubernetes-json-schema/.version"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$K8S_SCHEMAS_PACKAGE $KUBE_VERSIONS" ]]; then
    echo "install.sh: Kubernetes schemas ($K8S_SCHEMAS_PACKAGE: $KUBE_VERSIONS) already installed" >&2
    return
  fi
  command -v python3 >/dev/null && command -v unzip >/dev/null && command -v node >/dev/null ||
    { echo "install.sh: k8s-schemas needs python3 (pip), unzip and node" >&2; exit 1; }
  local start=$SECONDS work
  work=$(mktemp -d)
  python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$work" "$K8S_SCHEMAS_PACKAGE" >&2
  rm -rf "$dest" && mkdir -p "$dest"
  for v in $KUBE_VERSIONS; do
    unzip -q "$work"/kubernetes_validate-*.whl "kubernetes_validate/kubernetes-json-schema/v$v-local-strict/*" -d "$work/x"
    node "$(dirname "${BASH_SOURCE[0]}")/k8s-schemas.mjs" \
      "$work/x/kubernetes_validate/kubernetes-json-schema/v$v-local-strict" "$dest/v$v-standalone-strict" >&2
  done
  rm -rf "$work"
  echo "$K8S_SCHEMAS_PACKAGE $KUBE_VERSIONS" >"$stamp"
  echo "install.sh: Kubernetes schemas for $KUBE_VERSIONS installed in $((SECONDS - start))s" >&2
}

want=("$@")
[[ ${#want[@]} -gt 0 ]] || want=(helm kubeconform k6 k8s-schemas)
for tool in "${want[@]}"; do
  case "$tool" in
    helm) flags=$(helm_ldflags); install_tool helm helm.sh/helm/v3/cmd/helm "$HELM_VERSION" "$flags" ;;
    kubeconform) install_tool kubeconform github.com/yannh/kubeconform/cmd/kubeconform "$KUBECONFORM_VERSION" \
      "-X main.version=$KUBECONFORM_VERSION" ;;
    k6) install_tool k6 go.k6.io/k6 "$K6_VERSION" ;;
    k8s-schemas) install_schemas ;;
    *) echo "install.sh: unknown tool $tool (helm, kubeconform, k6, k8s-schemas)" >&2; exit 2 ;;
  esac
done

echo "$BIN"
