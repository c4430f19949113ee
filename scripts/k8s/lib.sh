#!/usr/bin/env bash
# Shared settings of scripts/k8s (sourced, never run). The cluster lives in a network
# namespace of its own (node IP 10.99.0.1 on a veth; its iptables rules stay there) and its
# containerd and kubelet in a private mount namespace (fake /proc/sys files, so the kubelet's
# kernel tunables never reach the host). Built binaries are cached in KG_K8S_CACHE; the
# running cluster's state is in KG_K8S_STATE and is removed by `down.sh`.
set -euo pipefail

K8S_CACHE="${KG_K8S_CACHE:-$HOME/.cache/kg-k8s}"
K8S_BIN="$K8S_CACHE/bin"
K8S_STATE="${KG_K8S_STATE:-/var/lib/kg-k8s}"
K8S_NETNS="${KG_K8S_NETNS:-kg-k8s}"
K8S_NODE_IP=10.99.0.1
K8S_NODE=node1
K8S_POD_CIDR=10.244.0.0/24
K8S_SERVICE_CIDR=10.96.0.0/16
K8S_DNS_IP=10.96.0.10
K8S_SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export K8S_CACHE K8S_BIN K8S_STATE K8S_NETNS

log() { echo "k8s: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# in_ns CMD…: runs a command inside the cluster's network and mount namespaces.
in_ns() { nsenter --mount="$K8S_STATE/mntns" --net="/run/netns/$K8S_NETNS" "$@"; }
# in_net CMD…: inside the network namespace only (kubectl, helm, curl to Services).
in_net() { nsenter --net="/run/netns/$K8S_NETNS" "$@"; }
kctl() { in_net "$K8S_BIN/kubectl" --kubeconfig="$K8S_STATE/pki/admin.kubeconfig" "$@"; }

# bh ARGS…: buildah with storage of its own under the cache (overlay where the kernel allows
# this user the mount, else vfs), chroot isolation: no daemon, no registry.
bh() {
  local driver
  if [[ ! -f "$K8S_CACHE/buildah.driver" ]]; then
    mkdir -p "$K8S_CACHE"
    local d
    d="$(mktemp -d)"
    mkdir -p "$d/l" "$d/u" "$d/w" "$d/m"
    if mount -t overlay overlay -o "lowerdir=$d/l,upperdir=$d/u,workdir=$d/w" "$d/m" 2>/dev/null; then
      umount "$d/m"
      echo overlay >"$K8S_CACHE/buildah.driver"
    else
      echo vfs >"$K8S_CACHE/buildah.driver"
    fi
    rm -rf "$d"
  fi
  driver="$(cat "$K8S_CACHE/buildah.driver")"
  BUILDAH_ISOLATION=chroot buildah --root "$K8S_CACHE/buildah/$driver" --runroot "$K8S_CACHE/buildah/run-$driver" \
    --storage-driver "$driver" "$@"
}
ctr_() { in_ns ctr -a "$K8S_STATE/containerd/containerd.sock" -n k8s.io "$@"; }

# import_image NAME ARCHIVE: loads a docker-archive into the cluster's containerd (the
# kubelet then finds it: every workload uses imagePullPolicy Never or IfNotPresent).
import_image() { ctr_ images import "$2" >/dev/null && log "image $1 imported"; }

# wait_for DESCRIPTION SECONDS CMD…: polls CMD every second until it succeeds.
wait_for() {
  local what=$1 limit=$2 i
  shift 2
  for ((i = 0; i < limit; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 1
  done
  die "$what: not within ${limit} s"
}
