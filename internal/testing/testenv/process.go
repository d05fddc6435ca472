package testenv

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// stopGrace is how long a process has to exit after SIGTERM before it is
// killed.
const stopGrace = 10 * time.Second

// Process is a child process of a test, run in its own process group, with
// its output in a log file, stopped by PID when the test ends.
type Process struct {
	name string
	cmd  *exec.Cmd
	log  string        // path of the file holding its stdout and stderr
	done chan struct{} // closed when the process has exited
	err  error         // its exit status, once done is closed
	once sync.Once     // guards stop
}

// StartProcess starts path with args and env (added to the test's own
// environment) in its own process group, its output going to
// <dir>/<name>.log, and registers a t.Cleanup that stops the whole group.
// The child is also sent SIGKILL if the test binary dies first.
func StartProcess(t testing.TB, dir, name string, env []string, path string, args ...string) (*Process, error) {
	t.Helper()
	logPath := filepath.Join(dir, name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	defer f.Close() // the child holds its own descriptor

	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdout = f
	cmd.Stderr = f
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &Process{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.Stop()
		if t.Failed() {
			t.Logf("last lines of the %s log:\n%s", name, p.Tail(40))
		}
	})
	return p, nil
}

// Exited reports whether the process has exited, with its status.
func (p *Process) Exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// Stop ends the process group: SIGTERM, then SIGKILL after stopGrace. It
// returns once the process has been reaped; it is safe to call twice. A
// process that exited by itself is not signalled: its pid may be reused.
func (p *Process) Stop() {
	p.once.Do(func() {
		if ok, _ := p.Exited(); ok {
			return
		}
		pid := p.cmd.Process.Pid // Setpgid makes it the group id too
		_ = signalGroup(pid, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(stopGrace):
			_ = signalGroup(pid, syscall.SIGKILL)
			<-p.done
		}
	})
}

// Tail returns the last n lines of the process's log.
func (p *Process) Tail(n int) string {
	data, err := os.ReadFile(p.log)
	if err != nil {
		return fmt.Sprintf("(reading %s: %v)", p.log, err)
	}
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// failure describes a process that did not come up, with the end of its log.
func (p *Process) failure(what error) error {
	if ok, err := p.Exited(); ok {
		// err is nil for an exit status of 0: %v prints it as <nil>.
		what = fmt.Errorf("%w (%s exited: %v)", what, p.name, err) //nolint:errorlint // a nil error, as said
	}
	return fmt.Errorf("%s: %w\nlast lines of its log:\n%s", p.name, what, p.Tail(30))
}

// FreePorts returns n distinct free TCP ports on 127.0.0.1. They are free when
// returned; a process started right after takes them with little risk of a
// race, and the callers start again if one was taken in between.
func FreePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port: %w", err)
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// WaitReady runs check every readyEvery until it returns nil, and returns
// at once when the process exits, or when timeout passes; the error then
// carries the end of the process's log. (A process offers no event for
// "ready": check asks it, as a readiness probe does.)
func (p *Process) WaitReady(timeout time.Duration, check func() error) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(readyEvery)
	defer tick.Stop()
	for {
		err := check()
		if err == nil {
			return nil
		}
		select {
		case <-p.done:
			return p.failure(err)
		case <-deadline.C:
			return p.failure(fmt.Errorf("not ready after %s: %w", timeout, err))
		case <-tick.C:
		}
	}
}

// readyEvery is how often WaitReady asks again.
const readyEvery = 100 * time.Millisecond
