package deploytest

import (
	"bytes"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/v2/lint/support"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"

	"github.com/strata-fleet/strata/internal/testing/goldenfile"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// chartDir is the chart under test.
var chartDir = filepath.Join("..", "..", "..", "deploy", "charts", "strata")

// valueSets are the values the chart is rendered and linted with, by the
// name of their golden file.
var valueSets = map[string]string{
	"ssh": `git: {url: "git@github.com:example/fleet.git", secretName: fleet-git}
`,
	"https-webhook-monitoring": `git: {url: "https://github.com/example/fleet.git", auth: https, secretName: fleet-git, author: {name: Fleet Bot, email: fleet@example.com}}
runner:
  onFailure: revert
  timeout: 30m
  approve: [staging]
  approver: "Fleet Bot <fleet@example.com>"
  extraArgs: [--hold-interval=1m]
  extraVolumes: [{name: notify, secret: {secretName: fleet-notify, defaultMode: 0440}}]
  extraVolumeMounts: [{name: notify, mountPath: /etc/strata/notify, readOnly: true}]
webhook: {enabled: true, secretName: fleet-webhook}
metrics:
  serviceMonitor: {enabled: true, labels: {release: prometheus}}
  prometheusRule: {enabled: true, stuckAfterSeconds: 2100}
image: {repository: registry.example.com/strata, tag: v1.2.3}
`,
}

// render renders the chart as helm template RELEASE --namespace strata
// does, with values; it returns the manifests by template.
func render(t testing.TB, vals string) (map[string]string, error) {
	t.Helper()
	c, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := yaml.Unmarshal([]byte(vals), &v); err != nil {
		t.Fatal(err)
	}
	rv, err := util.ToRenderValues(c, v, common.ReleaseOptions{Name: "strata", Namespace: "strata", Revision: 1, IsInstall: true},
		common.DefaultCapabilities)
	if err != nil {
		return nil, err
	}
	return engine.Render(c, rv)
}

// manifest joins the rendered templates in name order, NOTES.txt aside.
func manifest(out map[string]string) string {
	var names []string
	for name, text := range out {
		if strings.HasSuffix(name, "NOTES.txt") || strings.TrimSpace(text) == "" {
			continue
		}
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, name := range names {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", name, strings.TrimSpace(out[name]))
	}
	return b.String()
}

// TestRender: the chart's objects for each value set (golden files), each
// a valid YAML document.
func TestRender(t *testing.T) {
	for name, vals := range valueSets {
		t.Run(name, func(t *testing.T) {
			out, err := render(t, vals)
			if err != nil {
				t.Fatal(err)
			}
			got := manifest(out)
			dec := yaml.NewDecoder(strings.NewReader(got))
			for {
				var doc map[string]any
				if err := dec.Decode(&doc); err != nil {
					if err.Error() != "EOF" {
						t.Fatalf("the manifest is not YAML: %v\n%s", err, got)
					}
					break
				}
			}
			goldenfile.Check(t, filepath.Join("testdata", name+".yaml"), []byte(got), *update)
		})
	}
}

// TestLint: helm lint --strict finds nothing in the chart with each value
// set.
func TestLint(t *testing.T) {
	for name, vals := range valueSets {
		t.Run(name, func(t *testing.T) {
			var v map[string]any
			if err := yaml.Unmarshal([]byte(vals), &v); err != nil {
				t.Fatal(err)
			}
			l := action.NewLint()
			l.Strict = true
			l.Namespace = "strata"
			res := l.Run([]string{chartDir}, v)
			for _, m := range res.Messages {
				if m.Severity > support.InfoSev { // --strict fails on warnings
					t.Errorf("helm lint: %s", m)
				}
			}
			for _, err := range res.Errors {
				t.Errorf("helm lint: %v", err)
			}
		})
	}
}

// TestRefused: values that cannot make a working runner fail the render,
// saying which value and why.
func TestRefused(t *testing.T) {
	for _, tc := range []struct{ name, vals, want string }{
		{"no repository", `{}`, "git.url: the fleet repository's URL is required"},
		{"no credentials", `git: {url: "git@github.com:example/fleet.git"}`,
			"git.secretName: a Secret with the repository's credentials is required with git.auth ssh"},
		{"an unknown auth", `git: {url: "x", auth: token, secretName: s}`, `git.auth "token": ssh, https or none`},
		{"a webhook without its secret", `git: {url: "x", secretName: s}
webhook: {enabled: true}`, "webhook.secretName: a Secret with key secret is required"},
		{"an unknown failure mode", `git: {url: "x", secretName: s}
runner: {onFailure: retry}`, `runner.onFailure "retry": stop or revert`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := render(t, tc.vals)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("render: %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// TestNoSecretInArguments: the repository's and the webhook's credentials
// reach the runner as mounted files only: no argument or environment
// variable of any container holds a Secret's value (secretKeyRef) or
// names one but as a file.
func TestNoSecretInArguments(t *testing.T) {
	out, err := render(t, valueSets["https-webhook-monitoring"])
	if err != nil {
		t.Fatal(err)
	}
	text := manifest(out)
	if strings.Contains(text, "secretKeyRef") || strings.Contains(text, "envFrom") {
		t.Errorf("a container takes a Secret in its environment:\n%s", text)
	}
	type container struct {
		Name string
		Args []string
		Env  []struct{ Name, Value string }
	}
	var dep struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers     []container
					InitContainers []container `yaml:"initContainers"`
				}
			}
		}
	}
	for _, doc := range strings.Split(text, "\n---\n") {
		if strings.Contains(doc, "kind: Deployment") {
			if err := yaml.NewDecoder(bytes.NewReader([]byte(doc))).Decode(&dep); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(dep.Spec.Template.Spec.InitContainers) == 0 {
		t.Fatal("no Deployment with an init container rendered")
	}
	for _, c := range append(dep.Spec.Template.Spec.InitContainers, dep.Spec.Template.Spec.Containers...) {
		for _, e := range c.Env {
			if strings.Contains(strings.ToLower(e.Name), "token") || strings.Contains(strings.ToLower(e.Name), "password") {
				t.Errorf("%s: environment variable %s", c.Name, e.Name)
			}
		}
		for _, a := range c.Args {
			if strings.Contains(a, "@") && strings.Contains(a, "https://") && strings.Contains(a, ":") && strings.Count(a, ":") > 1 {
				t.Errorf("%s: an argument with credentials in a URL: %s", c.Name, a)
			}
		}
	}
}
