package deploytest

import (
	"bytes"
	"flag"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/v2/lint/support"

	"github.com/strata-fleet/strata/internal/fleet"
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
  rollout:
    stopWhen:
      - name: hub-critical
        alertmanager: {url: "http://alertmanager-operated.monitoring:9093", matchers: ['severity="critical"']}
    checks:
      - name: error-rate
        prometheus: {url: "http://prometheus-operated.monitoring:9090", query: 'sum(rate(http_errors_total[5m])) > 1'}
        timeout: 30s
webhook: {enabled: true, secretName: fleet-webhook}
metrics:
  serviceMonitor: {enabled: true, labels: {release: prometheus}}
  prometheusRule: {enabled: true, stuckAfterSeconds: 2100}
image: {repository: registry.example.com/strata, tag: v1.2.3}
`,
}

// render renders the chart under test with vals (Render).
func render(t testing.TB, vals string) (map[string]string, error) {
	t.Helper()
	return Render(chartDir, vals)
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
			got := Manifest(out)
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
		{"a rollout setting the runner's file does not take", `git: {url: "x", secretName: s}
runner: {rollout: {soak: 10m}}`, "runner.rollout.soak: unknown key (allowed: stopWhen, checks"},
		{"a rollout that is not a map", `git: {url: "x", secretName: s}
runner: {rollout: [x]}`, "runner.rollout: a map with the keys stopWhen and checks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := render(t, tc.vals)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("render: %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// TestRolloutConfig: runner.rollout becomes a ConfigMap mounted read-only
// where the runner's --rollout-config reads it, and the runner's own
// parser (fleet.ParseRunnerRollout) reads the rendered file as the values
// said; a change to it changes the pods' checksum, so the runners restart
// and read it again.
func TestRolloutConfig(t *testing.T) {
	out, err := render(t, valueSets["https-webhook-monitoring"])
	if err != nil {
		t.Fatal(err)
	}
	var cm struct {
		Metadata struct{ Name string }
		Data     map[string]string
	}
	var dep deployment
	for _, doc := range strings.Split(Manifest(out), "\n---\n") {
		switch {
		case strings.Contains(doc, "\nkind: ConfigMap\n"):
			if err := yaml.Unmarshal([]byte(doc), &cm); err != nil {
				t.Fatal(err)
			}
		case strings.Contains(doc, "\nkind: Deployment\n"):
			if err := yaml.Unmarshal([]byte(doc), &dep); err != nil {
				t.Fatal(err)
			}
		}
	}
	const file = "/etc/strata/rollout/rollout.yaml"
	r, err := fleet.ParseRunnerRollout(file, []byte(cm.Data["rollout.yaml"]))
	if err != nil {
		t.Fatalf("the runner cannot read the rendered file: %v\n%s", err, cm.Data["rollout.yaml"])
	}
	if len(r.StopWhen) != 1 || r.StopWhen[0].Name != "hub-critical" || r.StopWhen[0].Alertmanager == nil ||
		r.StopWhen[0].Alertmanager.Matchers[0] != `severity="critical"` {
		t.Errorf("stopWhen read as %+v", r.StopWhen)
	}
	if len(r.Checks) != 1 || r.Checks[0].Name != "error-rate" || r.Checks[0].Timeout != 30*time.Second || r.Checks[0].Prometheus == nil {
		t.Errorf("checks read as %+v", r.Checks)
	}

	spec := dep.Spec.Template.Spec
	if len(spec.Containers) != 1 || !slices.Contains(spec.Containers[0].Args, "--rollout-config="+file) {
		t.Fatalf("the runner is not given --rollout-config=%s: %+v", file, spec.Containers)
	}
	var volume string
	for _, m := range spec.Containers[0].VolumeMounts {
		if m.MountPath == path.Dir(file) {
			volume = m.Name
			if !m.ReadOnly {
				t.Errorf("%s is mounted writable", m.MountPath)
			}
		}
	}
	var from string
	for _, v := range spec.Volumes {
		if v.Name == volume && v.ConfigMap != nil {
			from = v.ConfigMap.Name
		}
	}
	if volume == "" || from != cm.Metadata.Name {
		t.Errorf("%s is mounted from volume %q of ConfigMap %q, want the ConfigMap %q", path.Dir(file), volume, from, cm.Metadata.Name)
	}

	changed, err := render(t, strings.Replace(valueSets["https-webhook-monitoring"], "timeout: 30s", "timeout: 45s", 1))
	if err != nil {
		t.Fatal(err)
	}
	checksum := regexp.MustCompile(`checksum/rollout: \S+`)
	if a, b := checksum.FindString(Manifest(out)), checksum.FindString(Manifest(changed)); a == "" || a == b {
		t.Errorf("the pods' checksum of the rollout file is %q, and %q once it changes", a, b)
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
	text := Manifest(out)
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
