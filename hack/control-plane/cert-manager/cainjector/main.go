// Command cainjector runs cert-manager's CA injector: it copies the CA of the Certificate named by
// a cert-manager.io/inject-ca-from annotation into the caBundle of webhook configurations, APIServices
// and CRD conversion webhooks.
//
// cert-manager's own command (cmd/cainjector) is a separate Go module that the module proxy does not
// serve; the injector itself is cert-manager's pkg/controller/cainjector, and this main only gives
// it a controller-runtime manager (no leader election, no metrics or health listeners).
package main

import (
	"flag"
	"os"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/klog/v2"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	"github.com/cert-manager/cert-manager/pkg/controller/cainjector"
	logf "github.com/cert-manager/cert-manager/pkg/logs"
	"github.com/cert-manager/cert-manager/pkg/util"
)

func main() {
	klog.InitFlags(nil)
	// --kubeconfig is controller-runtime's own flag (registered by its config package), read by
	// ctrl.GetConfig.
	namespace := flag.String("namespace", "", "inject only from Certificates/Secrets of this namespace (default: all)")
	flag.Parse()
	logf.InitLogs()
	ctrl.SetLogger(klog.NewKlogr())

	if err := run(*namespace); err != nil {
		klog.ErrorS(err, "cert-manager cainjector failed")
		klog.Flush()
		os.Exit(1)
	}
}

func run(namespace string) error {
	config, err := ctrl.GetConfig()
	if err != nil {
		return err
	}
	// The injector's field manager is derived from the user agent (server-side apply needs one).
	config = util.RestConfigWithUserAgent(config, "cainjector")
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(admissionregistrationv1.AddToScheme(scheme))
	utilruntime.Must(apiextensionsv1.AddToScheme(scheme))
	utilruntime.Must(apiregistrationv1.AddToScheme(scheme))
	utilruntime.Must(cmapi.AddToScheme(scheme))
	options := ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// The injector watches Secrets as metadata only and reads the one it needs directly.
		Client: client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.Secret{}}}},
	}
	if namespace != "" {
		options.Cache = cache.Options{DefaultNamespaces: map[string]cache.Config{namespace: {}}}
	}
	manager, err := ctrl.NewManager(config, options)
	if err != nil {
		return err
	}
	ctx := ctrl.SetupSignalHandler()
	err = cainjector.RegisterAllInjectors(ctx, manager, cainjector.SetupOptions{
		Namespace:                    namespace,
		EnableCertificatesDataSource: true,
		EnabledReconcilersFor: map[string]bool{
			cainjector.MutatingWebhookConfigurationName:   true,
			cainjector.ValidatingWebhookConfigurationName: true,
			cainjector.APIServiceName:                     true,
			cainjector.CustomResourceDefinitionName:       true,
		},
	})
	if err != nil {
		return err
	}
	return manager.Start(ctx)
}
