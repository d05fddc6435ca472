//go:build linux

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/strata-fleet/strata/internal/cli"
)

// What the delivery scenarios run: strata in-process with its output
// watched line by line, runs in the background, and spokes that refuse a
// version.

// output is where strata's standard output goes: lines, a watchWriter.
type output interface {
	io.Writer
	String() string
}

// strata runs the strata command line in-process, on the fleet repository
// unless args start with --root, writing its standard output to out (a new
// one when nil), and logs what it printed.
func (e *Env) strata(ctx context.Context, out output, args ...string) Result {
	e.t.Helper()
	if len(args) == 0 || args[0] != "--root" {
		args = append([]string{"--root", e.Repo.Dir}, args...)
	}
	if out == nil {
		out = newLines()
	}
	var stderr bytes.Buffer
	code := cli.MainContext(ctx, args, out, &stderr)
	r := Result{Code: code, Stdout: out.String(), Stderr: stderr.String()}
	e.t.Logf("strata %s: exit %d\n%s%s", strings.Join(args[2:], " "), code, indent(r.Stdout), indent(r.Stderr))
	return r
}

// running is a strata command running in the background.
type running struct {
	done chan struct{}
	res  Result
}

// start runs strata in the background (see strata); it is cancelled, and
// waited for, when the test ends.
func (e *Env) start(t *testing.T, out *lines, args ...string) *running {
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.res = e.strata(ctx, out, args...)
	}()
	t.Cleanup(func() { cancel(); <-r.done })
	return r
}

// result waits for the command to end, at most ConvergeTimeout past a
// step's, and returns what it did.
func (r *running) result(t *testing.T) Result {
	t.Helper()
	deadline := time.NewTimer(2 * ConvergeTimeout)
	defer deadline.Stop()
	select {
	case <-r.done:
		return r.res
	case <-deadline.C:
		t.Fatalf("the command did not end within %s", 2*ConvergeTimeout)
		return Result{}
	}
}

// lines is a command's output that the test can wait on.
type lines struct {
	mu  sync.Mutex
	buf bytes.Buffer
	// changed is closed, and replaced, at each write.
	changed chan struct{}
}

func newLines() *lines { return &lines{changed: make(chan struct{})} }

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.buf.Write(p)
	close(l.changed)
	l.changed = make(chan struct{})
	return n, err
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// wait waits until the output of run holds s; it fails the test when run
// ends first, or after ConvergeTimeout.
func (l *lines) wait(t *testing.T, run *running, s string) {
	t.Helper()
	deadline := time.NewTimer(ConvergeTimeout)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		seen, changed := strings.Contains(l.buf.String(), s), l.changed
		l.mu.Unlock()
		if seen {
			return
		}
		select {
		case <-changed:
		case <-run.done:
			if strings.Contains(l.String(), s) {
				return
			}
			t.Fatalf("the command ended (exit %d) before printing %q:\n%s%s", run.res.Code, s, run.res.Stdout, run.res.Stderr)
		case <-deadline.C:
			t.Fatalf("no %q printed within %s:\n%s", s, ConvergeTimeout, l.String())
		}
	}
}

// refuseVersion makes the spoke called cluster refuse any ConfigMap whose
// data says version v (a ValidatingAdmissionPolicy, as a cluster's policy
// would refuse what a patch brings): Argo CD's sync of it fails with the
// API server's message, "version v is refused on <cluster>". It returns
// once the API server applies the policy (a dry run is refused).
func (e *Env) refuseVersion(cluster, v string) {
	e.t.Helper()
	c := e.Spoke(cluster)
	name := "refuse-" + strings.ReplaceAll(v, ".", "-")
	fail := admissionv1.Fail
	policy := &admissionv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: &fail,
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionv1.RuleWithOperations{
					Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update},
					Rule:       admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
				},
			}}},
			Validations: []admissionv1.Validation{{
				Expression: fmt.Sprintf("!has(object.data) || !('version' in object.data) || object.data.version != '%s'", v),
				Message:    fmt.Sprintf("version %s is refused on %s", v, cluster),
			}},
		},
	}
	binding := &admissionv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        name,
			ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny},
		},
	}
	ctx, cancel := context.WithTimeout(context.Background(), ConvergeTimeout)
	defer cancel()
	api := c.Kube.AdmissionregistrationV1()
	if _, err := api.ValidatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{}); err != nil {
		e.t.Fatalf("the policy of %s: %v", cluster, err)
	}
	if _, err := api.ValidatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		e.t.Fatalf("the policy binding of %s: %v", cluster, err)
	}
	// The API server loads policies from its informers: ask, each tick,
	// until a dry run is refused.
	probe := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: "default"}, Data: map[string]string{"version": v}}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		_, err := c.Kube.CoreV1().ConfigMaps("default").Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil && strings.Contains(err.Error(), "is refused on") {
			return
		}
		select {
		case <-ctx.Done():
			e.t.Fatalf("%s does not apply its policy refusing version %s: %v", cluster, v, err)
		case <-tick.C:
		}
	}
}
