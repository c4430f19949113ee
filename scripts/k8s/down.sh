#!/usr/bin/env bash
# `npm run k8s:down`: stops the scripts/k8s cluster and leaves nothing behind: its processes
# (by their recorded PIDs, and the container shims by our private containerd socket), the
# mount and network namespaces (their mounts, bridge, veths and iptables rules die with
# them), the kubelet's cgroups and the state folder. The built binaries stay cached.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$ROOT/scripts/k8s/lib.sh"
set +e
[[ -d "$K8S_STATE" ]] || { log "no cluster state at $K8S_STATE"; exit 0; }
pidof_() { [[ -f "$K8S_STATE/pids/$1.pid" ]] && cat "$K8S_STATE/pids/$1.pid"; }
alive() { local p; p=$(pidof_ "$1") && kill -0 "$p" 2>/dev/null; }

# 1. Stop the node agents and the control plane, so nothing restarts the containers.
for c in kube-proxy kubelet kube-scheduler kube-controller-manager kube-apiserver; do
  alive "$c" && kill "$(pidof_ "$c")"
done
sleep 2
# 2. Every container: killed and deleted through containerd, then containerd itself.
if alive containerd && [[ -S "$K8S_STATE/containerd/containerd.sock" ]]; then
  for t in $(ctr_ tasks ls -q 2>/dev/null); do ctr_ tasks kill -s KILL "$t" >/dev/null 2>&1; done
  sleep 1
  for t in $(ctr_ tasks ls -q 2>/dev/null); do ctr_ tasks delete -f "$t" >/dev/null 2>&1; done
  for c in $(ctr_ containers ls -q 2>/dev/null); do ctr_ containers delete "$c" >/dev/null 2>&1; done
fi
# The shims are children of no process we track: found by our private socket in their arguments.
for pid in $(pgrep -f "containerd-shim-runc-v2 -namespace k8s.io -id .* -address $K8S_STATE/containerd/containerd.sock"); do
  kill "$pid" 2>/dev/null
done
alive containerd && kill "$(pidof_ containerd)"
alive etcd && kill "$(pidof_ etcd)"
for _ in $(seq 20); do
  any=0
  for c in kube-proxy kubelet kube-scheduler kube-controller-manager kube-apiserver containerd etcd; do
    alive "$c" && any=1
  done
  [[ $any == 0 ]] && break
  sleep 0.5
done
for c in kube-proxy kubelet kube-scheduler kube-controller-manager kube-apiserver containerd etcd; do
  alive "$c" && { log "$c did not stop: SIGKILL"; kill -9 "$(pidof_ "$c")"; }
done
# 3. The namespaces, the kubelet's cgroups (cgroup v1 hierarchies), then the state.
if mountpoint -q "$K8S_STATE/mntns"; then
  # Mounts made inside the private namespace (overlay roots, pod volumes) go with it.
  umount "$K8S_STATE/mntns"
fi
ip netns del "$K8S_NETNS" 2>/dev/null
for h in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/unified/kubepods; do
  [[ -d "$h" ]] && find "$h" -depth -type d -exec rmdir {} \; 2>/dev/null
done
# Anything still mounted under the state (none expected) is unmounted before the removal.
grep -o " $K8S_STATE[^ ]*" /proc/mounts | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
rm -rf "$K8S_STATE"
left=$(pgrep -f "$K8S_STATE" | grep -v "^$$\$")
[[ -z "$left" ]] || { log "processes still running: $left"; exit 1; }
log "cluster stopped; nothing of it is left (binaries stay in $K8S_BIN)"
