package kube

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/homedir"
)

// ServiceAccountDir is where Kubernetes mounts a pod's service account
// credentials (the token and the cluster's CA), as rest.InClusterConfig
// reads them.
const ServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// InCluster is the client configuration of the pod strata runs in: its
// service account's token and the cluster's CA under dir
// ([ServiceAccountDir] in a pod; tests give their own), the API server at
// $KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT (read with getenv), as
// rest.InClusterConfig builds it; clients are built from it through
// [Secure] as from any other. The token is read again as the kubelet
// rotates it (BearerTokenFile).
func InCluster(dir string, getenv func(string) string) (*rest.Config, error) {
	host, port := getenv("KUBERNETES_SERVICE_HOST"), getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, errors.New("not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not both set")
	}
	tokenFile, caFile := filepath.Join(dir, "token"), filepath.Join(dir, "ca.crt")
	token, err := os.ReadFile(tokenFile)
	if err != nil {
		return nil, fmt.Errorf("reading the service account's token: %w", err)
	}
	Remember(string(token))
	if _, err := os.Stat(caFile); err != nil {
		return nil, fmt.Errorf("reading the cluster's CA: %w", err)
	}
	cfg := &rest.Config{
		Host:            "https://" + net.JoinHostPort(host, port),
		TLSClientConfig: rest.TLSClientConfig{CAFile: caFile},
		BearerToken:     string(token),
		BearerTokenFile: tokenFile,
	}
	return cfg, nil
}

// NoKubeconfig reports whether the user gave no kubeconfig: no path, no
// $KUBECONFIG (read with getenv), no file at the default path
// (~/.kube/config); then a command running in a pod uses [InCluster].
func NoKubeconfig(path string, getenv func(string) string) bool {
	if path != "" || getenv(clientcmd.RecommendedConfigPathEnvVar) != "" {
		return false
	}
	_, err := os.Stat(filepath.Join(homedir.HomeDir(), clientcmd.RecommendedHomeDir, clientcmd.RecommendedFileName))
	return errors.Is(err, os.ErrNotExist)
}
