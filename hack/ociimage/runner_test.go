package main

import (
	"bufio"
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/strata-fleet/strata/internal/testing/deploytest"
	"github.com/strata-fleet/strata/internal/testing/testenv"
)

// runnerInCluster runs the chart's runner from the image as a pod runs
// it: the chart's objects applied to a real kube-apiserver, the runner
// container's own arguments (the chart's Deployment), and only the
// credentials a pod of the chart's ServiceAccount has (a token from
// TokenRequest and the CA where the kubelet mounts them,
// KUBERNETES_SERVICE_HOST and _PORT). It must lead on the chart's Lease.
// fleet is the image's fleet that rolloutOnce pushed.
func runnerInCluster(t *testing.T, root string, cfg ImageConfig) {
	t.Helper()
	srv := testenv.StartAPIServer(t)
	admin := srv.Config()
	testenv.InstallArgoCDCRDs(t, admin)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs := kubernetes.NewForConfigOrDie(admin)
	for _, ns := range []string{"strata", "argocd"} {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := deploytest.Render(filepath.Join("..", "..", "deploy", "charts", "strata"),
		`git: {url: "https://git.example.com/fleet.git", auth: https, secretName: fleet-git}`)
	must(t, err)
	_, err = deploytest.Apply(ctx, dynamic.NewForConfigOrDie(admin), deploytest.Manifest(out))
	must(t, err)
	args, err := deploytest.RunnerArgs(out)
	must(t, err)

	tok, err := cs.CoreV1().ServiceAccounts("strata").CreateToken(ctx, "strata",
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{}}, metav1.CreateOptions{})
	must(t, err)
	sa := filepath.Join(root, inRoot(t, root, "var/run"), "secrets/kubernetes.io/serviceaccount")
	must(t, os.MkdirAll(sa, 0o755))
	for name, data := range map[string][]byte{"token": []byte(tok.Status.Token), "ca.crt": srv.CAData, "namespace": []byte("strata")} {
		must(t, os.WriteFile(filepath.Join(sa, name), data, 0o644))
	}
	u, err := url.Parse(srv.URL)
	must(t, err)

	// The pod's own paths and addresses for the container's: the clone
	// is rolloutOnce's, the metrics on a free loopback port.
	var lease string
	for i, a := range args {
		a = strings.ReplaceAll(a, "$(POD_NAMESPACE)", "strata")
		switch {
		case strings.HasPrefix(a, "--root="):
			a = "--root=" + cfg.WorkingDir + "/fleet"
		case strings.HasPrefix(a, "--metrics-addr="):
			a = "--metrics-addr=127.0.0.1:0"
		case strings.HasPrefix(a, "--lease="):
			lease = strings.TrimPrefix(a, "--lease=")
		}
		args[i] = a
	}
	if lease == "" {
		t.Fatalf("the chart's runner has no --lease: %q", args)
	}
	cmd := exec.CommandContext(ctx, "chroot", append([]string{"--userspec=" + cfg.User, root, cfg.Entrypoint[0]}, args...)...)
	cmd.Env = append(cfg.Env, "KUBERNETES_SERVICE_HOST="+u.Hostname(), "KUBERNETES_SERVICE_PORT="+u.Port(), "POD_NAMESPACE=strata")
	stderr, err := cmd.StderrPipe()
	must(t, err)
	must(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

	// The runner says when it leads; the Lease must say the same.
	want := "the rollout runner leading on Lease " + lease + " is "
	var holder string
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		t.Logf("runner: %s", lines.Text())
		if id, ok := strings.CutPrefix(lines.Text(), want); ok {
			holder = id
			break
		}
	}
	if holder == "" {
		t.Fatalf("the image's runner ended (or %v) before it led on Lease %s: %v", ctx.Err(), lease, lines.Err())
	}
	ns, name, _ := strings.Cut(lease, "/")
	l, err := cs.CoordinationV1().Leases(ns).Get(ctx, name, metav1.GetOptions{})
	must(t, err)
	if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != holder {
		t.Errorf("Lease %s is held by %v, want the image's runner %s", lease, l.Spec.HolderIdentity, holder)
	}
}

// inRoot is dir, a path in the image's root file system, with a symbolic
// link at it (Debian's /var/run -> /run) followed inside the image, not
// on the host.
func inRoot(t *testing.T, root, dir string) string {
	t.Helper()
	target, err := os.Readlink(filepath.Join(root, dir))
	if err != nil {
		return dir // not a link (or not there: made as it is)
	}
	if filepath.IsAbs(target) {
		return strings.TrimPrefix(filepath.Clean(target), "/")
	}
	return filepath.Join(filepath.Dir(dir), target)
}
