package kube

import (
	"encoding/base64"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Redacted replaces what Scrub takes out.
const Redacted = "[redacted]"

// patterns find credentials by their shape, in the texts client-go and
// kubeconfig loading make.
var patterns = []struct {
	re   *regexp.Regexp
	repl string
}{
	// clientcmd's conversion of a kubeconfig with two users (clusters,
	// contexts) of one name prints the whole list: tokens, passwords, keys.
	{regexp.MustCompile(`(duplicate name "[^"]*" in list): .*`), "$1 (its entries are not shown: they hold credentials)"},
	{regexp.MustCompile(`-----BEGIN [A-Z0-9 ]+-----[\s\S]*?(-----END [A-Z0-9 ]+-----|$)`), Redacted},
	// base64 of "-----BEGIN", as client-key-data and client-certificate-data hold it.
	{regexp.MustCompile(`LS0tLS1CRUdJTi[A-Za-z0-9+/=]*`), Redacted},
	// a []byte printed with %v: a key or certificate decoded.
	{regexp.MustCompile(`\[\d{1,3}(?: \d{1,3}){15,}\]`), Redacted},
	{regexp.MustCompile(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]+`), "$1 " + Redacted},
	// a JSON web token (service account tokens, OIDC id-tokens).
	{regexp.MustCompile(`eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`), Redacted},
	{regexp.MustCompile(`(?i)("?\b(?:token|password|passwd|secret|client-key-data|client-certificate-data|id-token|refresh-token|access-token|client-secret|api-key|apikey)"?\s*[:=]\s*)("[^"]*"|'[^']*'|[^\s,;&}\]]+)`), "${1}" + Redacted},
	// the password of a URL's user information.
	{regexp.MustCompile(`(://[^/\s:@]+):[^@/\s]+@`), "$1:" + Redacted + "@"},
}

// known are the secrets of the kubeconfigs read ([Load], [Remember]),
// longest first: Scrub replaces them wherever they appear, also where no
// pattern would find them (a token in a struct printed with %v).
var known struct {
	sync.Mutex
	values []string
}

// minSecret is the length under which a value is not remembered: a short
// one would scrub ordinary words.
const minSecret = 6

// Remember adds secrets that [Scrub] removes from every text from now on.
func Remember(secrets ...string) {
	known.Lock()
	defer known.Unlock()
	for _, s := range secrets {
		s = strings.TrimSpace(s)
		if len(s) < minSecret || slices.Contains(known.values, s) {
			continue
		}
		known.values = append(known.values, s)
		if dec, err := base64.StdEncoding.DecodeString(s); err == nil && len(dec) >= minSecret {
			known.values = append(known.values, strings.TrimSpace(string(dec)))
		}
	}
	slices.SortFunc(known.values, func(a, b string) int { return len(b) - len(a) })
}

// Scrub returns s without credentials: the secrets of the kubeconfigs
// read, and whatever has the shape of a token, a password, a private key
// or a certificate. Every text from client-go or a kubeconfig goes through
// it before it is printed, logged or served.
func Scrub(s string) string {
	known.Lock()
	values := known.values
	known.Unlock()
	for _, v := range values {
		s = strings.ReplaceAll(s, v, Redacted)
	}
	for _, p := range patterns {
		s = p.re.ReplaceAllString(s, p.repl)
	}
	return s
}

// ScrubError returns err with its text scrubbed; errors.Is and errors.As
// still see what it wraps. nil stays nil.
func ScrubError(err error) error {
	if err == nil {
		return nil
	}
	// Only the outermost is known scrubbed: one wrapped in another error
	// may be beside unscrubbed text.
	if _, ok := err.(*scrubbed); ok { //nolint:errorlint // the outermost only, as said
		return err
	}
	return &scrubbed{err: err, msg: Scrub(err.Error())}
}

type scrubbed struct {
	err error
	msg string
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }

// Load reads the kubeconfig of rules, remembering its secrets first, from
// the files as text, so that an error in loading them (which may print
// them) is scrubbed too.
func Load(rules *clientcmd.ClientConfigLoadingRules) (*clientcmdapi.Config, error) {
	for _, path := range rules.GetLoadingPrecedence() {
		rememberFile(path)
	}
	cfg, err := rules.Load()
	if err != nil {
		return nil, ScrubError(err)
	}
	for _, a := range cfg.AuthInfos {
		Remember(a.Token, a.Password, string(a.ClientKeyData), string(a.ClientCertificateData))
		if a.AuthProvider != nil {
			for _, v := range a.AuthProvider.Config {
				Remember(v)
			}
		}
		if a.Exec != nil {
			for _, e := range a.Exec.Env {
				Remember(e.Value)
			}
		}
	}
	return cfg, nil
}

// secretKeys are the kubeconfig keys whose values are secrets.
var secretKeys = map[string]bool{
	"token": true, "password": true, "client-key-data": true, "client-certificate-data": true,
	"id-token": true, "refresh-token": true, "access-token": true, "client-secret": true,
}

// rememberFile remembers the secrets of a kubeconfig file, read as plain
// YAML: the values of its secret keys, and every value of an auth
// provider's config and an exec plugin's env.
func rememberFile(path string) {
	data, err := os.ReadFile(path)
	if err != nil || len(data) > 16<<20 {
		return
	}
	var doc any
	if yaml.Unmarshal(data, &doc) != nil {
		return
	}
	// under is the key above: every value of an auth provider's config is
	// a secret, and the value of an exec plugin's env entry.
	var walk func(v any, under string)
	walk = func(v any, under string) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if s, ok := e.(string); ok && (secretKeys[k] || under == "config" || under == "env" && k == "value") {
					Remember(s)
					continue
				}
				walk(e, k)
			}
		case []any:
			for _, e := range x {
				walk(e, under)
			}
		}
	}
	walk(doc, "")
}
