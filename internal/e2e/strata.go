//go:build linux

package e2e

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/strata-fleet/strata/internal/cli"
	"github.com/strata-fleet/strata/internal/testing/testenv"
)

// Result is what one strata command did.
type Result struct {
	Code           int
	Stdout, Stderr string
}

// Strata runs the strata command line in-process on the fleet repository,
// as `strata --root <repo> args...`, and logs what it printed.
func (e *Env) Strata(args ...string) Result {
	e.t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Main(append([]string{"--root", e.Repo.Dir}, args...), &stdout, &stderr)
	r := Result{Code: code, Stdout: stdout.String(), Stderr: stderr.String()}
	e.t.Logf("strata %s: exit %d\n%s%s", strings.Join(args, " "), code, indent(r.Stdout), indent(r.Stderr))
	return r
}

// MustStrata runs strata and fails the test unless it exits 0.
func (e *Env) MustStrata(args ...string) Result {
	e.t.Helper()
	r := e.Strata(args...)
	if r.Code != 0 {
		e.t.Fatalf("strata %s: exit %d\n%s", strings.Join(args, " "), r.Code, r.Stderr)
	}
	return r
}

// Bootstrap runs `strata bootstrap NAME --apply`: against the cluster
// itself when it runs Argo CD (distributed model: the hub, a spoke with its
// own), else against the hub, which registers the spoke with the
// credentials of its kubeconfig (central model).
func (e *Env) Bootstrap(name string) Result {
	e.t.Helper()
	c := e.clusterNamed(name)
	if c.OwnArgoCD {
		return e.MustStrata("bootstrap", name, "--apply", "--yes", "--kubeconfig", c.API.Kubeconfig, "--context", testenv.ContextName)
	}
	return e.MustStrata("bootstrap", name, "--apply", "--yes", "--kubeconfig", e.Hub.API.Kubeconfig, "--context", testenv.ContextName,
		"--credentials-kubeconfig", c.API.Kubeconfig, "--credentials-context", testenv.ContextName)
}

// Commit commits and pushes the fleet repository and asks Argo CD to look
// at it again at once: it returns the commit's hash.
func (e *Env) Commit(message string) string {
	e.t.Helper()
	sha := e.Repo.Commit(message)
	if e.ArgoCD != nil {
		e.RefreshAll()
	}
	return sha
}

// indent indents s for the log, keeping its first and last lines when it
// is long (strata validate -o json).
func indent(s string) string {
	if s == "" {
		return ""
	}
	const keep = 12
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 2*keep {
		omitted := fmt.Sprintf("[%d lines]", len(lines)-2*keep)
		lines = append(append(lines[:keep:keep], omitted), lines[len(lines)-keep:]...)
	}
	return "    " + strings.Join(lines, "\n    ") + "\n"
}
