#!/usr/bin/env bash
# `npm run k8s:up`: a real single-node Kubernetes on this machine, offline (build.sh makes
# the binaries). Everything runs inside the network namespace $KG_K8S_NETNS (node IP
# 10.99.0.1; the host's network, iptables and sysctls are untouched) and containerd and the
# kubelet inside a private mount namespace. Idempotent: a running cluster is left as it is.
# Afterwards: scripts/k8s/kubectl.sh …, scripts/k8s/helm.sh …, scripts/k8s/down.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$ROOT/scripts/k8s/lib.sh"
source "$ROOT/scripts/k8s/pki.sh"
started=$SECONDS

bash "$K8S_SCRIPTS/build.sh" >/dev/null
P="$K8S_STATE/pki"
mkdir -p "$K8S_STATE"/{containerd,cni/net.d,kubelet,etcd,logs,pids,volumes,fakesys}
L="$K8S_STATE/logs"
running() { [[ -f "$K8S_STATE/pids/$1.pid" ]] && kill -0 "$(cat "$K8S_STATE/pids/$1.pid")" 2>/dev/null; }
# daemon NAME CMD…: starts a component inside the namespaces, its PID and log in the state dir.
daemon() {
  local name=$1
  shift
  running "$name" && return 0
  # nsenter execs the component: the PID recorded is the component's own.
  nsenter --mount="$K8S_STATE/mntns" --net="/run/netns/$K8S_NETNS" "$@" >"$L/$name.log" 2>&1 &
  echo $! >"$K8S_STATE/pids/$name.pid"
}

# 1. The network namespace: a veth whose inner end carries the node IP, the default route
#    through it (nothing answers beyond: the cluster is offline), forwarding on inside.
if [[ ! -e "/run/netns/$K8S_NETNS" ]]; then
  ip netns add "$K8S_NETNS"
  ip -n "$K8S_NETNS" link set lo up
  ip -n "$K8S_NETNS" link add node0 type veth peer name node0p
  ip -n "$K8S_NETNS" link set node0p up
  ip -n "$K8S_NETNS" addr add "$K8S_NODE_IP/24" dev node0
  ip -n "$K8S_NETNS" link set node0 up
  ip -n "$K8S_NETNS" route add default dev node0
  ip netns exec "$K8S_NETNS" sysctl -qw net.ipv4.ip_forward=1
  ip netns exec "$K8S_NETNS" sysctl -qw net.bridge.bridge-nf-call-iptables=1 2>/dev/null || true
fi
# 2. The mount namespace, with fake files over the sysctls the kubelet would set on the host
#    (vm.overcommit_memory, kernel.panic, kernel.panic_on_oops, vm.panic_on_oom).
if ! mountpoint -q "$K8S_STATE/mntns" 2>/dev/null; then
  touch "$K8S_STATE/mntns"
  unshare --mount="$K8S_STATE/mntns" --propagation private true
  F="$K8S_STATE/fakesys"
  echo 1 >"$F/overcommit_memory"; echo 0 >"$F/panic_on_oom"; echo 10 >"$F/panic"; echo 1 >"$F/panic_on_oops"
  nsenter --mount="$K8S_STATE/mntns" sh -c "
    mount --bind $F/overcommit_memory /proc/sys/vm/overcommit_memory
    mount --bind $F/panic_on_oom /proc/sys/vm/panic_on_oom
    mount --bind $F/panic /proc/sys/kernel/panic
    mount --bind $F/panic_on_oops /proc/sys/kernel/panic_on_oops
    mount --make-rshared /"
fi

# 3. containerd, its configuration and the CNI bridge from scripts/k8s/cluster.
sed "s|@STATE@|$K8S_STATE|g" "$K8S_SCRIPTS/cluster/containerd.toml" >"$K8S_STATE/containerd/config.toml"
cp "$K8S_SCRIPTS/cluster/bridge.conflist" "$K8S_STATE/cni/net.d/10-bridge.conflist"
sed "s|@STATE@|$K8S_STATE|g" "$K8S_SCRIPTS/cluster/kubelet.yaml" >"$K8S_STATE/kubelet.yaml"
daemon containerd containerd --config "$K8S_STATE/containerd/config.toml"
wait_for "containerd's socket" 30 test -S "$K8S_STATE/containerd/containerd.sock"

# 4. The cluster's own images: the pod sandbox and CoreDNS (scratch images of one binary).
bash "$K8S_SCRIPTS/images.sh" cluster

# 5. The control plane.
make_pki
daemon etcd "$K8S_BIN/etcd" --name kg-k8s --data-dir "$K8S_STATE/etcd" \
  --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
  --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
  --initial-cluster kg-k8s=http://127.0.0.1:2380 --quota-backend-bytes 2147483648 --unsafe-no-fsync
wait_for "etcd" 30 in_net curl -sf http://127.0.0.1:2379/health
daemon kube-apiserver "$K8S_BIN/kube-apiserver" --etcd-servers=http://127.0.0.1:2379 \
  --advertise-address="$K8S_NODE_IP" --bind-address=0.0.0.0 --secure-port=6443 \
  --tls-cert-file="$P/apiserver.crt" --tls-private-key-file="$P/apiserver.key" --client-ca-file="$P/ca.crt" \
  --kubelet-client-certificate="$P/apiserver-kubelet-client.crt" --kubelet-client-key="$P/apiserver-kubelet-client.key" \
  --kubelet-preferred-address-types=InternalIP \
  --service-account-key-file="$P/sa.pub" --service-account-signing-key-file="$P/sa.key" \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --api-audiences=https://kubernetes.default.svc.cluster.local \
  --service-cluster-ip-range="$K8S_SERVICE_CIDR" --authorization-mode=Node,RBAC \
  --enable-admission-plugins=NodeRestriction --allow-privileged=true --profiling=false
wait_for "kube-apiserver" 120 in_net curl -sf --cacert "$P/ca.crt" --cert "$P/admin.crt" --key "$P/admin.key" \
  https://127.0.0.1:6443/readyz
daemon kube-controller-manager "$K8S_BIN/kube-controller-manager" --kubeconfig="$P/controller-manager.kubeconfig" \
  --authentication-kubeconfig="$P/controller-manager.kubeconfig" --authorization-kubeconfig="$P/controller-manager.kubeconfig" \
  --cluster-signing-cert-file="$P/ca.crt" --cluster-signing-key-file="$P/ca.key" --root-ca-file="$P/ca.crt" \
  --service-account-private-key-file="$P/sa.key" --use-service-account-credentials=true \
  --service-cluster-ip-range="$K8S_SERVICE_CIDR" --cluster-cidr=10.244.0.0/16 --allocate-node-cidrs=false \
  --leader-elect=false --bind-address=127.0.0.1 --profiling=false
daemon kube-scheduler "$K8S_BIN/kube-scheduler" --kubeconfig="$P/scheduler.kubeconfig" \
  --authentication-kubeconfig="$P/scheduler.kubeconfig" --authorization-kubeconfig="$P/scheduler.kubeconfig" \
  --leader-elect=false --bind-address=127.0.0.1 --profiling=false

# 6. The node: the kubelet and kube-proxy (iptables mode; conntrack sysctls left alone).
daemon kubelet "$K8S_BIN/kubelet" --config="$K8S_STATE/kubelet.yaml" --kubeconfig="$P/kubelet.kubeconfig" \
  --hostname-override="$K8S_NODE" --node-ip="$K8S_NODE_IP" --root-dir="$K8S_STATE/kubelet" --v=1
daemon kube-proxy "$K8S_BIN/kube-proxy" --kubeconfig="$P/kube-proxy.kubeconfig" --hostname-override="$K8S_NODE" \
  --cluster-cidr=10.244.0.0/16 --proxy-mode=iptables --conntrack-max-per-core=0 --conntrack-min=0 \
  --conntrack-tcp-timeout-established=0s --conntrack-tcp-timeout-close-wait=0s \
  --metrics-bind-address=127.0.0.1:10249 --healthz-bind-address=127.0.0.1:10256
node_ready() { kctl get node "$K8S_NODE" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' | grep -qx True; }
wait_for "node $K8S_NODE Ready" 120 node_ready

# 7. Cluster DNS and storage: CoreDNS; the default StorageClass `local` and hostPath volumes.
kctl apply -f "$K8S_SCRIPTS/cluster/coredns.yaml" >/dev/null
kctl apply -f "$K8S_SCRIPTS/cluster/storage.yaml" >/dev/null
for i in $(seq -w 1 12); do
  dir="$K8S_STATE/volumes/pv$i"
  mkdir -p "$dir" && chmod 0777 "$dir"
  # A volume released by a deleted claim (Retain) is emptied and made available again.
  if [[ "$(kctl get pv "local-pv$i" -o jsonpath='{.status.phase}' 2>/dev/null)" == Released ]]; then
    find "$dir" -mindepth 1 -delete
    kctl patch pv "local-pv$i" --type json -p '[{"op":"remove","path":"/spec/claimRef"}]' >/dev/null
  fi
  kctl get pv "local-pv$i" >/dev/null 2>&1 || kctl apply -f - >/dev/null <<EOV
apiVersion: v1
kind: PersistentVolume
metadata: { name: local-pv$i }
spec:
  capacity: { storage: 20Gi }
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: local
  hostPath: { path: $dir, type: Directory }
EOV
done
kctl -n kube-system rollout status deploy/coredns --timeout=120s >/dev/null
log "cluster up in $((SECONDS - started)) s: node $K8S_NODE Ready, CoreDNS ready (scripts/k8s/kubectl.sh get pods -A)"
