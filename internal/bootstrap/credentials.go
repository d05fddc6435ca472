package bootstrap

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/strata-fleet/strata/internal/suggest"
)

// Credentials register a spoke on its hub: what the hub's Argo CD
// authenticates with. They are read at bootstrap time and go only to the
// hub's API server (or to stdout), never to the repository.
type Credentials struct {
	// Server is the API server the credentials are for, when known (a
	// kubeconfig context names it; a token file does not).
	Server string
	Config ClusterConfig
	// Source says where they come from, for messages.
	Source string
}

// CredentialsFromKubeconfig reads the credentials of a context of a
// kubeconfig file: path "" means the default ($KUBECONFIG, else
// ~/.kube/config), context "" its current context.
func CredentialsFromKubeconfig(path, context string) (*Credentials, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if path != "" {
		rules.ExplicitPath = path
	}
	raw, err := rules.Load()
	if err != nil {
		return nil, fmt.Errorf("reading the kubeconfig: %w", err)
	}
	if context == "" {
		context = raw.CurrentContext
	}
	where := "the kubeconfig"
	if path != "" {
		where = path
	}
	ctx := raw.Contexts[context]
	if ctx == nil {
		return nil, suggest.Unknownf("unknown context %q of %s (%s)", context, where, suggest.NearestList(context, slices.Sorted(maps.Keys(raw.Contexts)), suggest.Shown))
	}
	cluster, user := raw.Clusters[ctx.Cluster], raw.AuthInfos[ctx.AuthInfo]
	if cluster == nil {
		return nil, fmt.Errorf("context %s of %s names no known cluster %q", context, where, ctx.Cluster)
	}
	if user == nil {
		return nil, fmt.Errorf("context %s of %s names no known user %q", context, where, ctx.AuthInfo)
	}
	cr := &Credentials{Server: cluster.Server, Source: "context " + context}
	tls := &cr.Config.TLSClientConfig
	tls.Insecure, tls.ServerName = cluster.InsecureSkipTLSVerify, cluster.TLSServerName
	if tls.CAData, err = dataOrFile(cluster.CertificateAuthorityData, cluster.CertificateAuthority); err != nil {
		return nil, fmt.Errorf("context %s: reading the certificate authority: %w", context, err)
	}
	if err := userCredentials(&cr.Config, user); err != nil {
		return nil, fmt.Errorf("context %s: %w", context, err)
	}
	return cr, nil
}

func userCredentials(cfg *ClusterConfig, user *clientcmdapi.AuthInfo) error {
	var err error
	tls := &cfg.TLSClientConfig
	if tls.CertData, err = dataOrFile(user.ClientCertificateData, user.ClientCertificate); err != nil {
		return fmt.Errorf("reading the client certificate: %w", err)
	}
	if tls.KeyData, err = dataOrFile(user.ClientKeyData, user.ClientKey); err != nil {
		return fmt.Errorf("reading the client key: %w", err)
	}
	cfg.BearerToken = user.Token
	if cfg.BearerToken == "" && user.TokenFile != "" {
		tok, err := os.ReadFile(user.TokenFile)
		if err != nil {
			return fmt.Errorf("reading the token file: %w", err)
		}
		cfg.BearerToken = strings.TrimSpace(string(tok))
	}
	cfg.Username, cfg.Password = user.Username, user.Password
	if e := user.Exec; e != nil {
		cfg.ExecProviderConfig = &ExecProviderConfig{Command: e.Command, Args: e.Args, APIVersion: e.APIVersion, InstallHint: e.InstallHint}
		if len(e.Env) > 0 {
			cfg.ExecProviderConfig.Env = map[string]string{}
			for _, v := range e.Env {
				cfg.ExecProviderConfig.Env[v.Name] = v.Value
			}
		}
	}
	if user.AuthProvider != nil {
		return fmt.Errorf("auth provider %q is not supported by Argo CD cluster secrets: use a token, a client certificate or an exec plugin", user.AuthProvider.Name)
	}
	if cfg.BearerToken == "" && len(tls.CertData) == 0 && cfg.Username == "" && cfg.ExecProviderConfig == nil {
		return fmt.Errorf("no credentials Argo CD can use (a token, a client certificate, basic auth or an exec plugin)")
	}
	return nil
}

func dataOrFile(data []byte, file string) ([]byte, error) {
	if len(data) > 0 || file == "" {
		return data, nil
	}
	return os.ReadFile(file)
}

// CredentialsFromTokenFile reads a bearer token (a service account's, say)
// and, when caFile is not "", the PEM bundle that verifies the server.
func CredentialsFromTokenFile(tokenFile, caFile string) (*Credentials, error) {
	tok, err := os.ReadFile(tokenFile)
	if err != nil {
		return nil, fmt.Errorf("reading the token: %w", err)
	}
	cr := &Credentials{Source: "token file " + tokenFile}
	cr.Config.BearerToken = strings.TrimSpace(string(tok))
	if cr.Config.BearerToken == "" {
		return nil, fmt.Errorf("token file %s is empty", tokenFile)
	}
	if caFile != "" {
		if cr.Config.TLSClientConfig.CAData, err = os.ReadFile(caFile); err != nil {
			return nil, fmt.Errorf("reading the certificate authority: %w", err)
		}
	}
	return cr, nil
}
