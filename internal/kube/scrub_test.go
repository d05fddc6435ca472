package kube

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
)

// pemKey is a private key as a kubeconfig's client-key-data holds it
// (decoded); pemCert a client certificate.
const (
	pemKey  = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n-----END PRIVATE KEY-----\n"
	pemCert = "-----BEGIN CERTIFICATE-----\nMIIBcertdataMIIBcertdata\n-----END CERTIFICATE-----\n"
)

// TestScrubPatterns scrubs texts that client-go and kubeconfig loading
// really make, and leaves what holds no credential as it is.
func TestScrubPatterns(t *testing.T) {
	jwt := "eyJhbGciOiJSUzI1NiIsImtpZCI6IiJ9.eyJpc3MiOiJrdWJlcm5ldGVzIn0.c2lnbmF0dXJlc2lnbmF0dXJl"
	for _, tc := range []struct {
		name, in string
		gone     []string
		kept     []string
	}{
		{name: "a private key in PEM", in: "tls: failed to find any PEM data in key input: " + pemKey,
			gone: []string{"MIIEvQIBADAN"}, kept: []string{"tls: failed to find any PEM data"}},
		{name: "a client certificate in base64", in: "client-certificate-data " + base64.StdEncoding.EncodeToString([]byte(pemCert)),
			gone: []string{base64.StdEncoding.EncodeToString([]byte(pemCert))[:30]}},
		{name: "a key printed as bytes", in: "{admin { [45 45 45 45 45 66 69 71 73 78 32 80 82 73 86 65 84 69 32 75 69 89] }}",
			gone: []string{"45 45 45 45"}, kept: []string{"{admin {"}},
		{name: "a bearer token in a header", in: `Authorization: Bearer abc.def-ghi_jkl`,
			gone: []string{"abc.def-ghi_jkl"}, kept: []string{"Bearer " + Redacted}},
		{name: "a service account token", in: "token " + jwt + " is invalid",
			gone: []string{jwt[:20]}, kept: []string{" is invalid"}},
		{name: "a token as key and value", in: `{"token":"s3cr3t-value","server":"https://a"}`,
			gone: []string{"s3cr3t-value"}, kept: []string{`"server":"https://a"`}},
		{name: "a password in a URL", in: `Get "https://bob:hunter2@api.example.com/apis": EOF`,
			gone: []string{"hunter2"}, kept: []string{"https://bob:" + Redacted + "@api.example.com/apis"}},
		{name: "a duplicate user", in: `error loading config file "/k": error converting *[]NamedAuthInfo into *map[string]*api.AuthInfo: duplicate name "admin" in list: [{admin { []  [] tok-1234567    [] map[]   <nil> <nil> []}}]`,
			gone: []string{"tok-1234567"}, kept: []string{`duplicate name "admin" in list`, `error loading config file "/k"`}},
		{name: "an API error", in: `applications.argoproj.io is forbidden: User "system:serviceaccount:argocd:reader" cannot list resource "applications"`,
			kept: []string{`applications.argoproj.io is forbidden: User "system:serviceaccount:argocd:reader" cannot list resource "applications"`}},
		{name: "a connection refused", in: `Get "https://127.0.0.1:1/apis/argoproj.io/v1alpha1/namespaces/argocd/applications?limit=500": dial tcp 127.0.0.1:1: connect: connection refused`,
			kept: []string{`Get "https://127.0.0.1:1/apis/argoproj.io/v1alpha1/namespaces/argocd/applications?limit=500": dial tcp 127.0.0.1:1: connect: connection refused`}},
		{name: "a token file named", in: `tokenFile: /var/run/secrets/token`, kept: []string{"tokenFile: /var/run/secrets/token"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Scrub(tc.in)
			for _, g := range tc.gone {
				if strings.Contains(got, g) {
					t.Errorf("Scrub kept %q:\n%s", g, got)
				}
			}
			for _, k := range tc.kept {
				if !strings.Contains(got, k) {
					t.Errorf("Scrub dropped %q:\n%s", k, got)
				}
			}
		})
	}
}

// TestLoadScrubsDuplicateUsers loads a kubeconfig with two users of one
// name, whose loading error client-go prints with every token, password
// and the client key of the list: none is left in the error.
func TestLoadScrubsDuplicateUsers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	kc := `apiVersion: v1
kind: Config
clusters:
- name: c1
  cluster: {server: "https://127.0.0.1:6443"}
contexts:
- name: ctx
  context: {cluster: c1, user: admin}
current-context: ctx
users:
- name: admin
  user: {token: plain-token-AAAA1111}
- name: admin
  user:
    client-certificate-data: ` + base64.StdEncoding.EncodeToString([]byte(pemCert)) + `
    client-key-data: ` + base64.StdEncoding.EncodeToString([]byte(pemKey)) + `
    username: bob
    password: hunter2pass
`
	if err := os.WriteFile(path, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = path
	if _, raw := rules.Load(); raw == nil || !strings.Contains(raw.Error(), "plain-token-AAAA1111") {
		t.Fatalf("client-go's own error no longer prints the token; the test needs another case: %v", raw)
	}
	_, err := Load(rules)
	if err == nil {
		t.Fatal("Load: no error")
	}
	for _, secret := range []string{"plain-token-AAAA1111", "hunter2pass", "45 45 45 45 45", "MIIEvQIBADAN"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error holds %q:\n%s", secret, err)
		}
	}
	if !strings.Contains(err.Error(), `duplicate name "admin"`) {
		t.Errorf("the error no longer says what is wrong:\n%s", err)
	}
	// What Load remembered is scrubbed from any later text too.
	if got := Scrub("the server said: plain-token-AAAA1111 and hunter2pass"); strings.Contains(got, "AAAA1111") || strings.Contains(got, "hunter2pass") {
		t.Errorf("Scrub after Load: %s", got)
	}
}
