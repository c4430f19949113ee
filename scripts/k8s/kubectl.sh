#!/usr/bin/env bash
# kubectl against the scripts/k8s cluster (run inside its network namespace).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
exec nsenter --net="/run/netns/$K8S_NETNS" "$K8S_BIN/kubectl" --kubeconfig="$K8S_STATE/pki/admin.kubeconfig" "$@"
