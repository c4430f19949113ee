#!/usr/bin/env bash
# Builds the single-node Kubernetes of scripts/k8s from source, offline but for the Go module
# proxy and Debian's packages (../shared/k8s-recipe is the worked recipe this follows):
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubelet, kube-proxy, kubectl
# and CoreDNS, pinned, into $KG_K8S_CACHE/bin (default ~/.cache/kg-k8s, outside the
# repository, so a clean clone reuses it); the static `pause` binary of the pod sandbox; and
# Debian's containerd, runc, the CNI plugins, iptables, conntrack. Each binary carries a stamp
# of its version and flags: a second run builds nothing. Prints the bin directory.
#
#   bash scripts/k8s/build.sh          # ~25 min on 2 cores with a cold Go cache, 0 s after
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$ROOT/scripts/k8s/lib.sh"

K8S_VERSION=v1.34.4    # 1.35+ kubelets refuse cgroup v1, which these machines have
ETCD_VERSION=v3.6.4    # the etcd Kubernetes v1.34.4's go.mod requires (its client), see below
COREDNS_VERSION=v1.14.7

mkdir -p "$K8S_BIN" "$K8S_CACHE/src"
# One build at a time (CI starts one in the background; up.sh then waits for it here).
exec 9>"$K8S_CACHE/.build.lock"
flock 9
command -v go >/dev/null || die "the Go toolchain (go) is required"

# Debian's packages: containerd 1.6 and runc, the bridge/host-local/portmap/loopback CNI
# plugins, iptables and conntrack for kube-proxy, gcc for the pause binary.
missing=()
for p in containerd runc containernetworking-plugins iptables conntrack gcc libc6-dev buildah debootstrap; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  bash -c "source '$ROOT/scripts/infra/lib.sh' && apt_install ${missing[*]}" >&2
fi

stamped() { [[ -x "$K8S_BIN/$1" && -f "$K8S_BIN/.$1.stamp" && "$(cat "$K8S_BIN/.$1.stamp")" == "$2" ]]; }
stamp() { echo "$2" >"$K8S_BIN/.$1.stamp"; }
# Builds run below the machine's other work (they take both cores for minutes).
gobuild() { nice -n 10 env GOFLAGS="${GOFLAGS:-} -buildvcs=false" go build -trimpath "$@"; }

# The pause binary (the pod sandbox's only process): static, a few kilobytes.
if ! stamped pause "pause-1"; then
  gcc -static -Os -o "$K8S_BIN/pause" "$ROOT/scripts/k8s/images/pause.c"
  strip "$K8S_BIN/pause"
  stamp pause "pause-1"
fi

# Kubernetes and etcd: one wrapper module, whose go.mod is derived from k8s.io/kubernetes's own:
# its staging modules (k8s.io/api => ./staging/…) become the published versions (v0.34.x), and
# etcd's server joins at the version of the etcd client Kubernetes requires. In one module graph
# etcd compiles against the very packages Kubernetes was compiled with (gRPC, protobuf,
# OpenTelemetry, Prometheus, x/net…), so the Go build cache serves them: on a cold cache etcd
# costs its own packages only (built in a module of its own it compiled all of them again, the
# largest step after kube-apiserver). The check after `go mod tidy` fails the build if etcd
# moved any of Kubernetes's versions. The version is stamped as the release Makefile does, or
# the API server reports v0.0.0 and Helm's kubeVersion checks fail.
ld="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ld+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$(cut -d. -f2 <<<"$K8S_VERSION")"
  ld+=" -X $pkg.gitTreeState=clean -X $pkg.gitCommit=0000000000000000000000000000000000000000"
  ld+=" -X $pkg.buildDate=2026-01-01T00:00:00Z"
done
w="$K8S_CACHE/src/k8s-wrap"
ready="$w/.ready-$K8S_VERSION-etcd-$ETCD_VERSION"
# module_versions FILE: "path version" of every requirement a go.mod lists (no replaced ones).
module_versions() { sed -n 's/^[[:space:]]*\([a-z][^[:space:]]*\) \(v[^[:space:]]*\)\( \/\/ indirect\)\{0,1\}$/\1 \2/p' "$1" | sort -u; }
wrapper() {
  [[ -f "$ready" ]] && return
  log "resolving the Kubernetes $K8S_VERSION and etcd $ETCD_VERSION modules"
  rm -rf "$w"; mkdir -p "$w"
  gomod=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
  [[ -f "$gomod" ]] || die "cannot download k8s.io/kubernetes@$K8S_VERSION from the Go module proxy"
  staging="v0.${K8S_VERSION#v1.}"
  { echo 'module k8swrap'; echo; echo 'go 1.24.0'; echo
    echo "require ("; echo "	k8s.io/kubernetes $K8S_VERSION"; echo "	go.etcd.io/etcd/server/v3 $ETCD_VERSION"; echo ")"; echo
    echo 'replace ('; grep -E '=> \./staging' "$gomod" | awk -v v="$staging" '{print "\t"$1" => "$1" "v}'; echo ')'; } >"$w/go.mod"
  { echo '//go:build tools'; echo; echo 'package tools'; echo; echo 'import ('
    for x in kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl; do
      echo "	_ \"k8s.io/kubernetes/cmd/$x\""; done
    echo '	_ "go.etcd.io/etcd/server/v3"'; echo ')'; } >"$w/tools.go"
  (cd "$w" && go mod tidy >&2)
  # Every module Kubernetes requires must be at Kubernetes's own version in the wrapper.
  local moved
  moved=$(comm -23 <(module_versions "$gomod" | grep -v ' v0\.0\.0$') <(cd "$w" && go list -m -f '{{.Path}} {{.Version}}' all | sort -u))
  [[ -z "$moved" ]] || die "etcd $ETCD_VERSION moves Kubernetes $K8S_VERSION's dependencies: $moved"
  touch "$ready"
}
for c in kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl; do
  stamped "$c" "$K8S_VERSION $ld" && continue
  wrapper
  log "building $c $K8S_VERSION"
  start=$SECONDS
  (cd "$w" && gobuild -ldflags "$ld" -o "$K8S_BIN/$c" "k8s.io/kubernetes/cmd/$c")
  stamp "$c" "$K8S_VERSION $ld"
  log "$c built in $((SECONDS - start)) s"
done

if ! stamped etcd "$ETCD_VERSION k8s-$K8S_VERSION"; then
  wrapper
  log "building etcd $ETCD_VERSION"
  start=$SECONDS
  (cd "$w" && gobuild -ldflags '-s -w' -o "$K8S_BIN/etcd" go.etcd.io/etcd/server/v3)
  stamp etcd "$ETCD_VERSION k8s-$K8S_VERSION"
  log "etcd built in $((SECONDS - start)) s"
fi

# CoreDNS (cluster DNS), static for its scratch image, with only the Corefile's plugins
# (scripts/k8s/coredns/main.go): a wrapper module around it.
coredns_main="$ROOT/scripts/k8s/coredns/main.go"
coredns_stamp="$COREDNS_VERSION $(sha256sum "$coredns_main" | cut -c1-16)"
if ! stamped coredns "$coredns_stamp"; then
  log "building coredns $COREDNS_VERSION"
  start=$SECONDS
  w="$K8S_CACHE/src/coredns-wrap"
  rm -rf "$w"; mkdir -p "$w"
  cp "$coredns_main" "$w/main.go"
  printf 'module corednswrap\n\ngo 1.24.0\n\nrequire github.com/coredns/coredns %s\n' "$COREDNS_VERSION" >"$w/go.mod"
  (cd "$w" && go mod tidy >&2 && CGO_ENABLED=0 gobuild -ldflags '-s -w' -o "$K8S_BIN/coredns" .)
  stamp coredns "$coredns_stamp"
  log "coredns built in $((SECONDS - start)) s"
fi

echo "$K8S_BIN"
