#!/usr/bin/env bash
# helm (scripts/tools/install.sh's pinned build) against the scripts/k8s cluster.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
HELM_BIN="$(bash "$K8S_SCRIPTS/../tools/install.sh" helm)"
exec nsenter --net="/run/netns/$K8S_NETNS" "$HELM_BIN/helm" --kubeconfig="$K8S_STATE/pki/admin.kubeconfig" "$@"
