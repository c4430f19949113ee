#!/usr/bin/env bash
# The cluster's PKI (sourced by up.sh): a self-signed CA, the API server's serving
# certificate, client certificates of each component and of the admin, the kubelet's serving
# certificate, the service-account key pair, and a kubeconfig per client. Made once per
# cluster, in $K8S_STATE/pki.
make_pki() {
  local p="$K8S_STATE/pki"
  [[ -f "$p/admin.kubeconfig" ]] && return 0
  mkdir -p "$p"
  (
    cd "$p"
    umask 077
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 3650 -subj "/CN=kg-k8s-ca" 2>/dev/null
    cert() { # cert <file> <CN> <O or ""> <subjectAltName or ""> <extendedKeyUsage>
      local subj="/CN=$2"
      [[ -n "$3" ]] && subj="/O=$3/CN=$2"
      openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "$subj" 2>/dev/null
      { echo "basicConstraints=CA:FALSE"; echo "keyUsage=critical,digitalSignature,keyEncipherment"
        echo "extendedKeyUsage=$5"; [[ -n "$4" ]] && echo "subjectAltName=$4"; } >"$1.ext"
      openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -out "$1.crt" -days 3650 \
        -extfile "$1.ext" 2>/dev/null
      rm -f "$1.csr" "$1.ext"
    }
    local dns="DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
    cert apiserver kube-apiserver "" "$dns,DNS:localhost,IP:127.0.0.1,IP:10.96.0.1,IP:$K8S_NODE_IP" serverAuth
    cert apiserver-kubelet-client kube-apiserver-kubelet-client system:masters "" clientAuth
    cert admin admin system:masters "" clientAuth
    cert controller-manager system:kube-controller-manager "" "" clientAuth
    cert scheduler system:kube-scheduler "" "" clientAuth
    cert kube-proxy system:kube-proxy "" "" clientAuth
    cert kubelet-client "system:node:$K8S_NODE" system:nodes "" clientAuth
    cert kubelet-server "$K8S_NODE" "" "DNS:$K8S_NODE,IP:$K8S_NODE_IP,IP:127.0.0.1" serverAuth
    openssl genrsa -out sa.key 2048 2>/dev/null
    openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
    kubeconfig() { # kubeconfig <file> <user> <certificate name>
      cat >"$1" <<EOK
apiVersion: v1
kind: Config
clusters:
  - name: kg-k8s
    cluster: { certificate-authority: $p/ca.crt, server: "https://127.0.0.1:6443" }
users:
  - name: $2
    user: { client-certificate: $p/$3.crt, client-key: $p/$3.key }
contexts:
  - name: kg-k8s
    context: { cluster: kg-k8s, user: $2 }
current-context: kg-k8s
EOK
    }
    kubeconfig admin.kubeconfig admin admin
    kubeconfig controller-manager.kubeconfig system:kube-controller-manager controller-manager
    kubeconfig scheduler.kubeconfig system:kube-scheduler scheduler
    kubeconfig kube-proxy.kubeconfig system:kube-proxy kube-proxy
    kubeconfig kubelet.kubeconfig "system:node:$K8S_NODE" kubelet-client
  )
}
