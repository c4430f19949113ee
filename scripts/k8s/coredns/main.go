// CoreDNS with only the plugins the cluster's Corefile (scripts/k8s/cluster/coredns.yaml) uses,
// in the order of CoreDNS's plugin.cfg (the order requests go through them). The stock binary
// compiles every plugin (cloud DNS providers' SDKs among them), which is most of its build time.
// Built by scripts/k8s/build.sh; a plugin added to the Corefile is added here too.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loop"
	_ "github.com/coredns/coredns/plugin/ready"
)

func init() {
	dnsserver.Directives = []string{"ready", "health", "errors", "cache", "kubernetes", "loop"}
}

func main() { coremain.Run() }
