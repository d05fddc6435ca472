package testenv

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// controllerManagerTimeout bounds how long the namespace controller may take
// to remove the probe namespace after the controller manager starts.
const controllerManagerTimeout = 90 * time.Second

// StartControllerManager runs kube-controllers (hack/kube-controllers/main.go:
// kube-controller-manager's garbage collector and namespace controller, the
// ones that make deletions complete) against the server until the test ends.
// Without it a deleted namespace stays Terminating forever. It returns once
// the controllers work: a namespace it deletes is gone.
func (s *APIServer) StartControllerManager(t testing.TB) {
	t.Helper()
	p, err := StartProcess(t, s.Dir, "kube-controllers", nil, s.bins.controllers,
		"--kubeconfig="+s.Kubeconfig,
		"--kube-api-qps=100",
		"--kube-api-burst=200",
	)
	if err != nil {
		t.Fatalf("starting kube-controllers: %v", err)
	}
	// It has no health endpoint: the event that says it works is the removal of a namespace deleted for the purpose.
	cs, err := kubernetes.NewForConfig(s.Config())
	if err != nil {
		t.Fatal(err)
	}
	name := "strata-testenv-probe-" + randomHex(t, 4)
	ctx, cancel := context.WithTimeout(context.Background(), controllerManagerTimeout)
	defer cancel()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the probe namespace %s: %v", name, err)
	}
	if err := cs.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting the probe namespace %s: %v", name, err)
	}
	err = p.WaitReady(controllerManagerTimeout, func() error {
		_, err := cs.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("the deleted namespace %s is still there (%w)", name, err)
	})
	if err != nil {
		t.Fatalf("starting kube-controllers: %v", err)
	}
}
