package testenv

import (
	"testing"
	"time"
)

// ControllerManagerControllers are the controllers StartControllerManager
// runs: the ones that make deletions complete (namespaces emptied and removed,
// dependents collected through owner references).
const ControllerManagerControllers = "garbage-collector-controller,namespace-controller"

// StartControllerManager runs kube-controller-manager against the server with
// the controllers in ControllerManagerControllers, no leader election and no
// serving port, until the test ends. Without it a deleted namespace stays
// Terminating forever.
func (s *APIServer) StartControllerManager(t testing.TB) {
	t.Helper()
	p, err := StartProcess(t, s.Dir, "kube-controller-manager", nil, s.bins.controllerManager,
		"--kubeconfig="+s.Kubeconfig,
		"--controllers="+ControllerManagerControllers,
		"--leader-elect=false",
		"--secure-port=0",
		"--kube-api-qps=100",
		"--kube-api-burst=200",
	)
	if err != nil {
		t.Fatalf("starting kube-controller-manager: %v", err)
	}
	// It has no health endpoint without a serving port; a bad flag or an
	// unreachable server makes it exit at once.
	time.Sleep(time.Second)
	if ok, _ := p.Exited(); ok {
		t.Fatalf("starting kube-controller-manager: %v", p.failure(errEarlyExit))
	}
}
