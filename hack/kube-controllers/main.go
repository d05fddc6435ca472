//go:build ignore

// kube-controllers runs the two controllers of kube-controller-manager that
// strata's test environments need (internal/testing/testenv's
// StartControllerManager): the garbage collector, which completes
// foreground deletions (Argo CD's prune) and collects dependents through
// owner references, and the namespace controller, which empties and removes
// a deleted namespace. hack/build-kube.sh builds it in its wrapper module
// from k8s.io/kubernetes's own controller packages, wired as
// cmd/kube-controller-manager/app wires them (core.go,
// controllermanager.go), with the same defaults; kube-controller-manager
// itself links every controller and adds 388 packages to kube-apiserver's.
//
// The file carries the build tag ignore: it is not part of strata's module
// (which does not require k8s.io/kubernetes); build-kube.sh copies it
// without the tag.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	cacheddiscovery "k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/controller-manager/pkg/informerfactory"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller/garbagecollector"
	namespacecontroller "k8s.io/kubernetes/pkg/controller/namespace"
)

// kube-controller-manager's defaults (pkg/controller/*/config/v1alpha1 and
// the app's resync and discovery periods).
const (
	gcWorkers           = 20
	namespaceWorkers    = 10
	namespaceSyncPeriod = 5 * time.Minute
	resyncPeriod        = 12 * time.Hour
	discoveryPeriod     = 30 * time.Second
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "the kubeconfig of the API server")
	qps := flag.Float64("kube-api-qps", 20, "queries per second to the API server")
	burst := flag.Int("kube-api-burst", 30, "burst of queries to the API server")
	klog.InitFlags(nil)
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *kubeconfig, float32(*qps), *burst); err != nil {
		fmt.Fprintln(os.Stderr, "kube-controllers:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, kubeconfig string, qps float32, burst int) error {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	config.QPS, config.Burst = qps, burst
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	metadataClient, err := metadata.NewForConfig(config)
	if err != nil {
		return err
	}
	shared := informers.NewSharedInformerFactory(client, resyncPeriod)
	objectOrMetadata := informerfactory.NewInformerFactory(shared,
		metadatainformer.NewSharedInformerFactory(metadataClient, resyncPeriod))
	informersStarted := make(chan struct{})

	gc, syncDiscovery, err := garbageCollector(ctx, config, client, objectOrMetadata, informersStarted)
	if err != nil {
		return err
	}
	namespaces, err := namespaceController(ctx, config, shared)
	if err != nil {
		return err
	}

	shared.Start(ctx.Done())
	objectOrMetadata.Start(ctx.Done())
	close(informersStarted)
	go gc.Run(ctx, gcWorkers, discoveryPeriod)
	go gc.Sync(ctx, syncDiscovery, discoveryPeriod)
	go namespaces.Run(ctx, namespaceWorkers)
	<-ctx.Done()
	return nil
}

// garbageCollector is newGarbageCollectorController's collector, with the
// discovery client its Sync reads new resources from (not the mapper's).
func garbageCollector(ctx context.Context, config *rest.Config, client kubernetes.Interface,
	factory informerfactory.InformerFactory, informersStarted <-chan struct{},
) (*garbagecollector.GarbageCollector, discovery.ServerResourcesInterface, error) {
	mapperDiscovery, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return nil, nil, err
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(cacheddiscovery.NewMemCacheClient(mapperDiscovery))
	go wait.Until(mapper.Reset, discoveryPeriod, ctx.Done())

	gcConfig := rest.CopyConfig(config)
	gcConfig.QPS *= 2 // each deletion is two calls
	metadataClient, err := metadata.NewForConfig(gcConfig)
	if err != nil {
		return nil, nil, err
	}
	builder := garbagecollector.NewDependencyGraphBuilder(ctx, metadataClient, mapper,
		garbagecollector.DefaultIgnoredResources(), factory, informersStarted)
	gc, err := garbagecollector.NewComposedGarbageCollector(ctx, client, metadataClient, mapper, builder)
	if err != nil {
		return nil, nil, err
	}
	syncDiscovery, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return nil, nil, err
	}
	return gc, syncDiscovery, nil
}

// namespaceController is newNamespaceController's, with its raised limits.
func namespaceController(ctx context.Context, config *rest.Config, shared informers.SharedInformerFactory,
) (*namespacecontroller.NamespaceController, error) {
	nsConfig := rest.CopyConfig(config)
	nsConfig.QPS *= 20
	nsConfig.Burst *= 100
	client, err := kubernetes.NewForConfig(nsConfig)
	if err != nil {
		return nil, err
	}
	metadataClient, err := metadata.NewForConfig(nsConfig)
	if err != nil {
		return nil, err
	}
	return namespacecontroller.NewNamespaceController(ctx, client, metadataClient,
		client.Discovery().ServerPreferredNamespacedResources,
		shared.Core().V1().Namespaces(), namespaceSyncPeriod, v1.FinalizerKubernetes), nil
}
