package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// On a terminal, bootstrap --apply shows its plan and applies only when the
// answer is yes; --yes does not ask. The context's server does not listen:
// an answer that lets it go on fails reaching it, one that does not never
// tries.
func TestBootstrapApplyAsksOnATerminal(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: local, cluster: {server: "https://127.0.0.1:1"}}]
contexts: [{name: dc11a, context: {cluster: local, user: u}}]
users: [{name: u, user: {token: t0ken}}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join("..", "..", "examples", "seed-004-self-managed")
	for _, tc := range []struct {
		name, answer string
		yes          bool
		asked        bool
		wantErr      string
	}{
		{name: "no", answer: "n\n", asked: true, wantErr: "nothing applied"},
		{name: "nothing", answer: "\n", asked: true, wantErr: "nothing applied"},
		{name: "end of input", answer: "", asked: true, wantErr: "nothing applied: no answer (pass --yes to apply without asking)"},
		{name: "yes", answer: "y\n", asked: true, wantErr: "connection refused"},
		{name: "--yes", yes: true, wantErr: "connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			g := &globals{stdin: strings.NewReader(tc.answer), interactive: true, stdout: &stdout, stderr: &stderr}
			cmd := newRoot(g)
			args := []string{"--root", root, "bootstrap", "dc11a", "--apply", "--kubeconfig", kubeconfig, "--timeout", "10s"}
			if tc.yes {
				args = append(args, "--yes")
			}
			cmd.SetArgs(args)
			err := cmd.Execute()
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
			}
			if want := "plan: the bootstrap of dc11a (distributed model) goes to dc11a through context dc11a"; !strings.HasPrefix(stdout.String(), want) {
				t.Errorf("stdout = %q, want the plan first", stdout.String())
			}
			if asked := strings.Contains(stderr.String(), "apply these 4 objects? [y/N] "); asked != tc.asked {
				t.Errorf("asked = %v, want %v (stderr %q)", asked, tc.asked, stderr.String())
			}
		})
	}
}
