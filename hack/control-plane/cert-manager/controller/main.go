// Command controller runs cert-manager's certificate controllers with the SelfSigned and CA issuers
// against a cluster, for the operator's cert-manager-mode tests.
//
// cert-manager's own command (cmd/controller) is a separate Go module that the module proxy does
// not serve, so this small main assembles the controllers of the served module
// github.com/cert-manager/cert-manager: every reconcile loop below is cert-manager's code, only the
// wiring (flags, informer start, one goroutine per controller) is ours. It is lean on purpose: no
// ACME, Vault or Venafi issuers (they bring in every DNS provider's SDK), no leader
// election, no metrics endpoint, no webhook (the tests install the CRDs and create valid objects).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"k8s.io/klog/v2"

	controllerpkg "github.com/cert-manager/cert-manager/pkg/controller"
	logf "github.com/cert-manager/cert-manager/pkg/logs"

	// Each blank import registers its controller (or issuer type) with the packages above.
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/approver"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/ca"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/selfsigned"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/issuing"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/keymanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/readiness"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/requestmanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/revisionmanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/trigger"
	_ "github.com/cert-manager/cert-manager/pkg/controller/clusterissuers"
	_ "github.com/cert-manager/cert-manager/pkg/controller/issuers"
	_ "github.com/cert-manager/cert-manager/pkg/issuer/ca"
	_ "github.com/cert-manager/cert-manager/pkg/issuer/selfsigned"
)

func main() {
	klog.InitFlags(nil)
	var opts controllerpkg.ContextOptions
	flag.StringVar(&opts.Kubeconfig, "kubeconfig", "", "kubeconfig of the cluster")
	flag.StringVar(&opts.Namespace, "namespace", "", "watch this namespace only (default: all)")
	flag.StringVar(&opts.ClusterResourceNamespace, "cluster-resource-namespace", "kube-system",
		"namespace of the Secrets that ClusterIssuers refer to")
	workers := flag.Int("workers", 5, "workers per controller")
	// cert-manager's defaults for the options its own command would set from its configuration.
	opts.KubernetesAPIQPS, opts.KubernetesAPIBurst = 20, 50
	opts.CertificateRequestMinimumBackoffDuration = time.Hour
	opts.CertificateRequestMaximumBackoffDuration = 32 * time.Hour
	flag.Parse()
	logf.InitLogs()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(logf.NewContext(ctx, logf.Log), opts, *workers); err != nil {
		klog.ErrorS(err, "cert-manager controller failed")
		klog.Flush()
		os.Exit(1)
	}
}

func run(ctx context.Context, opts controllerpkg.ContextOptions, workers int) error {
	factory, err := controllerpkg.NewContextFactory(ctx, opts)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(controllerpkg.Known()))
	for name := range controllerpkg.Known() {
		names = append(names, name)
	}
	sort.Strings(names)
	controllers := make(map[string]controllerpkg.Interface, len(names))
	for _, name := range names {
		controller, err := controllerpkg.Known()[name](factory)
		if err != nil {
			return fmt.Errorf("constructing controller %s: %w", name, err)
		}
		controllers[name] = controller
	}
	// The constructors asked the shared factories for their informers; start them all once.
	shared, err := factory.Build()
	if err != nil {
		return err
	}
	shared.KubeSharedInformerFactory.Start(ctx.Done())
	shared.SharedInformerFactory.Start(ctx.Done())
	shared.HTTP01ResourceMetadataInformersFactory.Start(ctx.Done())
	if shared.GatewaySolverEnabled {
		shared.GWShared.Start(ctx.Done())
	}
	klog.InfoS("starting cert-manager controllers", "controllers", strings.Join(names, ","))

	var wg sync.WaitGroup
	errs := make(chan error, len(controllers))
	for name, controller := range controllers {
		wg.Go(func() {
			if err := controller.Run(workers, ctx); err != nil {
				errs <- fmt.Errorf("controller %s: %w", name, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}
