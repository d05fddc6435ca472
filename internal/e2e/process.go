//go:build linux

package e2e

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// stopGrace is how long a process has to exit after SIGTERM before it is
// killed.
const stopGrace = 10 * time.Second

// process is a child of the test: its own process group, its output in a log
// file, stopped by PID when the test ends.
type process struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error
	once sync.Once
}

// startProcess starts path with args and env (added to the test's own
// environment) in its own process group, its output going to
// <dir>/<name>.log. A t.Cleanup stops the group by PID; the kernel kills the
// child if the test binary dies first.
func startProcess(t testing.TB, dir, name string, env []string, path string, args ...string) (*process, error) {
	t.Helper()
	logPath := filepath.Join(dir, name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	defer f.Close() // the child holds its own descriptor

	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout = f
	cmd.Stderr = f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			t.Logf("last lines of the %s log (%s):\n%s", name, logPath, p.tail(30))
		}
	})
	return p, nil
}

// exited reports whether the process has exited, with its status.
func (p *process) exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// stop ends the process group: SIGTERM, then SIGKILL after stopGrace. A
// process that exited by itself is not signalled (its PID may be reused).
func (p *process) stop() {
	p.once.Do(func() {
		if ok, _ := p.exited(); ok {
			return
		}
		pid := p.cmd.Process.Pid // Setpgid: also the group's id
		_ = syscall.Kill(-pid, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(stopGrace):
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			<-p.done
		}
	})
}

// tail returns the last n lines of the process's log.
func (p *process) tail(n int) string {
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

// waitReady polls check until it returns nil, the process exits, or timeout
// passes; the error then carries the end of the process's log.
func (p *process) waitReady(timeout time.Duration, check func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return nil
		}
		if ok, xerr := p.exited(); ok {
			return fmt.Errorf("%s exited (%v) before it was ready: %w\nlast lines of its log:\n%s", p.name, xerr, err, p.tail(30))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %s: %w\nlast lines of its log:\n%s", p.name, timeout, err, p.tail(30))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// listening checks that something accepts TCP connections at addr.
func listening(addr string) func() error {
	return func() error {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return err
		}
		return c.Close()
	}
}

// freePorts returns n distinct free TCP ports on 127.0.0.1.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// childPIDs returns the descendants of the test binary, read from /proc.
func childPIDs() []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(data[i+1:])
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(string(f[1]))
		children[ppid] = append(children[ppid], pid)
	}
	var out []int
	queue := []int{os.Getpid()}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// rssOf returns the resident memory of process pid in KiB, or 0.
func rssOf(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmRSS:")); ok {
			if f := bytes.Fields(rest); len(f) > 0 {
				n, _ := strconv.Atoi(string(f[0]))
				return n
			}
		}
	}
	return 0
}

// programOf names the program of process pid: for the multi-call argocd
// binary, its role (ARGOCD_BINARY_NAME in its environment); else the
// command's name; the test binary is "test".
func programOf(pid int) string {
	if pid == os.Getpid() {
		return "test"
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return "?"
	}
	name := strings.TrimSpace(string(data))
	if name == "argocd" {
		env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		for _, kv := range bytes.Split(env, []byte{0}) {
			if v, ok := bytes.CutPrefix(kv, []byte("ARGOCD_BINARY_NAME=")); ok {
				return string(v)
			}
		}
	}
	return name
}
