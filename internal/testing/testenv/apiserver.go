package testenv

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// ContextName is the name of the cluster, user and context in the kubeconfig
// file of an [APIServer].
const ContextName = "strata-testenv"

// Timeouts for the control plane to come up; generous, because `go test ./...`
// may start several at once on two cores.
const (
	etcdTimeout      = 30 * time.Second
	apiServerTimeout = 120 * time.Second
)

// APIServer is a running kube-apiserver with its etcd, both stopped by the
// cleanup of the test that started them.
type APIServer struct {
	// URL is the server's address, https://127.0.0.1:<port>.
	URL string
	// Kubeconfig is the path of a kubeconfig file whose current context,
	// ContextName, reaches the server as a cluster admin.
	Kubeconfig string
	// Token is the bearer token of a user in the group system:masters.
	Token string
	// CAData is the PEM bundle that verifies the server's certificate.
	CAData []byte
	// Dir is the directory holding the server's files and logs.
	Dir string
	// Etcd is the version its etcd reports (3.6.16).
	Etcd string

	config *rest.Config
	bins   binaries
}

// Config returns a new copy of the client configuration for the server: its
// URL, CA and the admin bearer token.
func (s *APIServer) Config() *rest.Config { return rest.CopyConfig(s.config) }

// StartAPIServer starts etcd and kube-apiserver on free loopback ports, waits
// until the server is ready (/readyz and the default namespace), and returns
// it. Without the binaries the test fails with a message naming
// hack/build-kube.sh, or is skipped under -short; it fails too if the control
// plane does not come up, showing the end of its log.
func StartAPIServer(t testing.TB) *APIServer {
	t.Helper()
	requireSupported(t)
	bins := requireBinaries(t)

	began := time.Now()
	// Created first, so removed last: after the processes using it stopped.
	dir := t.TempDir()
	s := &APIServer{Dir: dir, bins: bins, Token: randomHex(t, 24)}

	etcdURL, err := retryOnPortClash(func() (string, error) { return startEtcd(t, dir, bins.etcd) })
	if err != nil {
		t.Fatalf("starting etcd: %v", err)
	}
	if s.Etcd, err = etcdVersion(etcdURL); err != nil {
		t.Fatalf("starting etcd: %v", err)
	}
	args, err := s.prepare(etcdURL)
	if err != nil {
		t.Fatalf("starting kube-apiserver: %v", err)
	}
	if _, err := retryOnPortClash(func() (string, error) { return "", s.start(t, args) }); err != nil {
		t.Fatalf("starting kube-apiserver: %v", err)
	}
	if err := s.writeKubeconfig(); err != nil {
		t.Fatalf("starting kube-apiserver: %v", err)
	}
	t.Logf("kube-apiserver %s (etcd %s) ready at %s in %s", KubeVersion, s.Etcd, s.URL, time.Since(began).Round(time.Millisecond))
	return s
}

// retryOnPortClash runs start again, up to twice, when it failed because a
// port found free was taken before the process bound it.
func retryOnPortClash(start func() (string, error)) (string, error) {
	var (
		out string
		err error
	)
	for range 3 {
		out, err = start()
		if err == nil || !strings.Contains(err.Error(), "address already in use") {
			break
		}
	}
	return out, err
}

// startEtcd starts a single-member etcd with its data in dir and returns its
// client URL once it reports healthy.
func startEtcd(t testing.TB, dir, etcd string) (string, error) {
	ports, err := FreePorts(2)
	if err != nil {
		return "", err
	}
	client := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	peer := "http://127.0.0.1:" + strconv.Itoa(ports[1])
	p, err := StartProcess(t, dir, "etcd", nil, etcd,
		"--name=testenv",
		"--data-dir="+filepath.Join(dir, "etcd"),
		"--listen-client-urls="+client,
		"--advertise-client-urls="+client,
		"--listen-peer-urls="+peer,
		"--initial-advertise-peer-urls="+peer,
		"--initial-cluster=testenv="+peer,
		"--logger=zap",
		"--log-level=warn",
	)
	if err != nil {
		return "", err
	}
	err = p.WaitReady(etcdTimeout, func() error {
		resp, err := http.Get(client + "/health")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET /health: %s", resp.Status)
		}
		return nil
	})
	if err != nil {
		p.Stop()
		return "", err
	}
	return client, nil
}

// etcdVersion asks a running etcd its version (GET /version).
func etcdVersion(client string) (string, error) {
	resp, err := http.Get(client + "/version")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var v struct {
		Server string `json:"etcdserver"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return "", fmt.Errorf("GET %s/version: %w", client, err)
	}
	if v.Server == "" {
		return "", fmt.Errorf("GET %s/version: no etcdserver version", client)
	}
	return v.Server, nil
}

// prepare writes the token file and the service account key pair and returns
// the kube-apiserver flags that do not depend on its port.
func (s *APIServer) prepare(etcdURL string) ([]string, error) {
	tokens := filepath.Join(s.Dir, "tokens.csv")
	line := s.Token + `,strata-admin,strata-admin,"system:masters"` + "\n"
	if err := os.WriteFile(tokens, []byte(line), 0o600); err != nil {
		return nil, err
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("generating the service account key: %w", err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, err
	}
	keyFile := filepath.Join(s.Dir, "sa.key")
	pubFile := filepath.Join(s.Dir, "sa.pub")
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub})
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(pubFile, pubPEM, 0o600); err != nil {
		return nil, err
	}
	return []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--token-auth-file=" + tokens,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + pubFile,
		"--service-account-signing-key-file=" + keyFile,
		// A configuration value only: nothing is reached at these addresses.
		"--service-cluster-ip-range=10.0.0.0/24",
		// No controller creates the service account tokens it would wait for.
		"--disable-admission-plugins=ServiceAccount",
		// Endpoints may not point at a loopback address.
		"--endpoint-reconciler-type=none",
		"--allow-privileged=true",
		"--enable-priority-and-fairness=false",
		"--profiling=false",
	}, nil
}

// start runs kube-apiserver on a free port with a fresh certificate directory
// and waits until it is ready.
func (s *APIServer) start(t testing.TB, args []string) error {
	ports, err := FreePorts(1)
	if err != nil {
		return err
	}
	certDir, err := os.MkdirTemp(s.Dir, "certs-")
	if err != nil {
		return err
	}
	args = append(args[:len(args):len(args)],
		"--secure-port="+strconv.Itoa(ports[0]),
		"--cert-dir="+certDir, // it writes a self-signed apiserver.crt there
	)
	p, err := StartProcess(t, s.Dir, "kube-apiserver", nil, s.bins.apiServer, args...)
	if err != nil {
		return err
	}
	s.URL = "https://127.0.0.1:" + strconv.Itoa(ports[0])
	s.config = nil
	err = p.WaitReady(apiServerTimeout, func() error { return s.ready(filepath.Join(certDir, "apiserver.crt")) })
	if err != nil {
		p.Stop()
	}
	return err
}

// ready checks that the server has written its certificate, answers /readyz,
// and has created the default namespace. It reads the certificate at each
// try: a first read may catch the file half written, and a client that kept
// it would fail verification for good.
func (s *APIServer) ready(certFile string) error {
	ca, err := os.ReadFile(certFile)
	if err != nil {
		return fmt.Errorf("waiting for the serving certificate: %w", err)
	}
	s.CAData = ca
	s.config = &rest.Config{
		Host:            s.URL,
		BearerToken:     s.Token,
		TLSClientConfig: rest.TLSClientConfig{CAData: ca},
		QPS:             100,
		Burst:           200,
		Timeout:         30 * time.Second,
	}
	client, err := rest.HTTPClientFor(s.config)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, path := range []string{"/readyz", "/api/v1/namespaces/default"} {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: %s", path, resp.Status)
		}
	}
	return nil
}

// writeKubeconfig writes the kubeconfig file for CLI tests.
func (s *APIServer) writeKubeconfig() error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[ContextName] = &clientcmdapi.Cluster{Server: s.URL, CertificateAuthorityData: s.CAData}
	cfg.AuthInfos[ContextName] = &clientcmdapi.AuthInfo{Token: s.Token}
	cfg.Contexts[ContextName] = &clientcmdapi.Context{Cluster: ContextName, AuthInfo: ContextName, Namespace: "default"}
	cfg.CurrentContext = ContextName
	s.Kubeconfig = filepath.Join(s.Dir, "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, s.Kubeconfig); err != nil {
		return fmt.Errorf("writing the kubeconfig: %w", err)
	}
	return nil
}

// randomHex returns n random bytes in hex.
func randomHex(t testing.TB, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("generating a token: %v", err)
	}
	return hex.EncodeToString(b)
}
