package argosim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/strata-fleet/strata/internal/live"
)

// Spoke is a cluster the hub's Argo CD manages: its name and the rendered/
// directory its root Application renders (rendered/<type>/<target>).
type Spoke struct {
	Name, Dir string
}

// Sim is a simulated application controller (see the package doc).
type Sim struct {
	Dyn       dynamic.Interface
	Namespace string // Argo CD's namespace
	Remote    string // the fleet's bare remote
	RepoURL   string // the roots' source.repoURL
	Spokes    []Spoke
	// Delay is how long after a push the Applications turn synced.
	Delay time.Duration
	// Fail, when set, returns a sync failure message for a cluster's
	// Application at a revision ("" for success).
	Fail func(cluster, app, rev string) string
	// Degrade, when set, returns a health message for a cluster's
	// Application with its rendered spec: the sync succeeds and the
	// Application turns Degraded with that message ("" for Healthy).
	Degrade func(cluster, app string, spec map[string]any) string
	// Writers is how many writes go out at once (default 8).
	Writers int

	once  sync.Once
	queue chan job
	done  chan struct{}

	mu      sync.Mutex
	last    string
	tip     string // the last revision pushed
	exists  map[string]bool
	healthy map[string]time.Time
	pushed  map[string]time.Time
	writes  int
	err     error
}

type job struct {
	rev string
	at  time.Time
}

// Start runs the controller until ctx ends.
func (s *Sim) Start(ctx context.Context) {
	s.once.Do(func() {
		s.queue = make(chan job, 4096)
		s.done = make(chan struct{})
		s.exists = map[string]bool{}
		s.healthy = map[string]time.Time{}
		s.pushed = map[string]time.Time{}
		go s.loop(ctx)
	})
}

// Pushed tells the controller that the remote's main is now rev. Every
// commit the push brought (since the last revision pushed or synced) is
// pushed now: one push may carry several steps.
func (s *Sim) Pushed(rev string) {
	now := time.Now()
	revs := s.since(rev)
	s.mu.Lock()
	for _, r := range revs {
		if _, ok := s.pushed[r]; !ok {
			s.pushed[r] = now
		}
	}
	s.mu.Unlock()
	s.queue <- job{rev: rev, at: now}
}

// since moves the tip to rev and returns the commits from the former tip
// to rev (rev alone when they cannot be listed).
func (s *Sim) since(rev string) []string {
	s.mu.Lock()
	prev := s.tip
	s.tip = rev
	s.mu.Unlock()
	if prev == "" || prev == rev {
		return []string{rev}
	}
	revs, err := s.lines(context.Background(), "rev-list", prev+".."+rev)
	if err != nil || len(revs) == 0 {
		return []string{rev}
	}
	return revs
}

// Healthy returns when the last Application of rev was written healthy,
// and whether it was.
func (s *Sim) Healthy(rev string) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.healthy[rev]
	return t, ok
}

// PushedAt returns when rev was announced.
func (s *Sim) PushedAt(rev string) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.pushed[rev]
	return t, ok
}

// Stats returns the number of objects written and the first error.
func (s *Sim) Stats() (writes int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writes, s.err
}

func (s *Sim) loop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case j := <-s.queue:
			if wait := time.Until(j.at.Add(s.Delay)); wait > 0 {
				t := time.NewTimer(wait)
				select {
				case <-ctx.Done():
					t.Stop()
					return
				case <-t.C:
				}
			}
			if err := s.apply(ctx, j.rev); err != nil {
				s.mu.Lock()
				if s.err == nil {
					s.err = err
				}
				s.mu.Unlock()
			}
		}
	}
}

// Sync applies rev now (the fleet's starting state, before any push).
func (s *Sim) Sync(ctx context.Context, rev string) error {
	s.mu.Lock()
	s.tip = rev
	s.mu.Unlock()
	return s.apply(ctx, rev)
}

// apply writes what rev changed since the last revision applied.
func (s *Sim) apply(ctx context.Context, rev string) error {
	s.mu.Lock()
	last := s.last
	s.mu.Unlock()
	var files []string
	var err error
	if last == "" {
		files, err = s.lines(ctx, "ls-tree", "-r", "--name-only", rev, "--", "rendered/")
	} else {
		files, err = s.lines(ctx, "diff", "--name-only", "--no-renames", last, rev, "--", "rendered/")
	}
	if err != nil {
		return err
	}
	byDir := map[string]string{}
	for _, sp := range s.Spokes {
		byDir[sp.Dir+"/"] = sp.Name
	}
	type app struct{ cluster, file string }
	var apps []app
	touched := map[string]string{} // cluster -> dir
	for _, f := range files {
		i := strings.Index(f, "/templates/")
		if i < 0 || !strings.HasSuffix(f, ".yaml") {
			continue
		}
		c, ok := byDir[f[:i+1]]
		if !ok {
			continue
		}
		apps = append(apps, app{c, f})
		touched[c] = f[:i]
	}
	now := time.Now().UTC().Format(time.RFC3339)
	// The Applications stream from git to the writers, one at a time:
	// a fleet's first sync is 101,000 of them.
	objs := func(yield func(*unstructured.Unstructured) bool) error {
		err := s.show(ctx, rev, len(apps), func(yield func(string)) {
			for _, a := range apps {
				yield(a.file)
			}
		}, func(i int, data []byte) (bool, error) {
			a := apps[i]
			var doc struct {
				Kind     string         `yaml:"kind"`
				Metadata map[string]any `yaml:"metadata"`
				Spec     map[string]any `yaml:"spec"`
			}
			if data == nil {
				return true, nil // removed at rev
			}
			if err := yaml.Unmarshal(data, &doc); err != nil {
				return false, fmt.Errorf("%s at %.12s: %w", a.file, rev, err)
			}
			if doc.Kind != "Application" {
				return true, nil
			}
			name, _ := doc.Metadata["name"].(string)
			if name == "" {
				return false, fmt.Errorf("%s at %.12s: an Application without metadata.name", a.file, rev)
			}
			msg := ""
			if s.Fail != nil {
				msg = s.Fail(a.cluster, name, rev)
			}
			status := Status(doc.Spec, rev, msg, now)
			if s.Degrade != nil {
				if why := s.Degrade(a.cluster, name, doc.Spec); why != "" {
					status["health"] = map[string]any{"status": "Degraded", "message": why}
				}
			}
			return yield(s.object(name, doc.Spec, status)), nil
		})
		if err != nil {
			return err
		}
		for c, dir := range touched {
			spec := map[string]any{
				"project": "default",
				"source": map[string]any{"repoURL": s.RepoURL, "path": dir, "targetRevision": "main",
					"helm": map[string]any{"valuesObject": map[string]any{"cluster": map[string]any{"name": c}}}},
				"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": s.Namespace},
			}
			if !yield(s.object(c+"-root", spec, Status(spec, rev, "", now))) {
				return nil
			}
		}
		return nil
	}
	if err := s.write(ctx, objs); err != nil {
		return err
	}
	var revs []string
	if last != "" {
		revs, _ = s.lines(ctx, "rev-list", last+".."+rev)
	}
	s.mu.Lock()
	s.last = rev
	at := time.Now()
	s.healthy[rev] = at
	for _, r := range revs {
		s.healthy[r] = at // the steps the same push carried
	}
	s.mu.Unlock()
	return nil
}

func (s *Sim) object(name string, spec, status map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"name": name, "namespace": s.Namespace}, "spec": spec, "status": status}}
}

// write creates or merge-patches the objects objs yields, Writers at a
// time; the first error stops it.
func (s *Sim) write(ctx context.Context, objs func(yield func(*unstructured.Unstructured) bool) error) error {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	res := s.Dyn.Resource(live.ApplicationGVR).Namespace(s.Namespace)
	next := make(chan *unstructured.Unstructured)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	for range max(1, s.Writers) {
		wg.Go(func() {
			for u := range next {
				if err := s.put(ctx, res, u); err != nil {
					select {
					case errs <- err:
					default:
					}
					stop()
				}
			}
		})
	}
	err := objs(func(u *unstructured.Unstructured) bool {
		select {
		case next <- u:
			return true
		case <-ctx.Done():
			return false
		}
	})
	close(next)
	wg.Wait()
	select {
	case werr := <-errs:
		return werr
	default:
		return err
	}
}

func (s *Sim) put(ctx context.Context, res dynamic.ResourceInterface, u *unstructured.Unstructured) error {
	name := u.GetName()
	s.mu.Lock()
	known := s.exists[name]
	s.writes++
	s.mu.Unlock()
	if !known {
		_, err := res.Create(ctx, u, metav1.CreateOptions{})
		if err == nil {
			s.mu.Lock()
			s.exists[name] = true
			s.mu.Unlock()
			return nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating Application %s: %w", name, err)
		}
	}
	// The spec and status replace the old ones whole, in one call ("add"
	// replaces a member that exists); strata's refresh annotations stay.
	body, err := json.Marshal([]map[string]any{
		{"op": "add", "path": "/spec", "value": u.Object["spec"]},
		{"op": "add", "path": "/status", "value": u.Object["status"]}})
	if err != nil {
		return err
	}
	if _, err := res.Patch(ctx, name, types.JSONPatchType, body, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("patching Application %s: %w", name, err)
	}
	return nil
}

// Status is the status Argo CD v3.5 writes after syncing spec at rev: Synced
// and Healthy, or, with a failure message, OutOfSync with a Failed
// operation naming the resource that failed.
func Status(spec map[string]any, rev, failure, finished string) map[string]any {
	sync, phase := "Synced", "Succeeded"
	if failure != "" {
		sync, phase = "OutOfSync", "Failed"
	}
	result := map[string]any{"revision": rev, "source": spec["source"]}
	if failure != "" {
		result["resources"] = []any{map[string]any{"group": "apps", "version": "v1", "kind": "Deployment",
			"namespace": "default", "name": "app", "status": "SyncFailed", "message": failure}}
	}
	return map[string]any{
		"sync": map[string]any{"status": sync, "revision": rev,
			"comparedTo": map[string]any{"source": spec["source"], "destination": spec["destination"]}},
		"health": map[string]any{"status": "Healthy"},
		"operationState": map[string]any{"phase": phase, "message": failure, "startedAt": finished, "finishedAt": finished,
			"operation":  map[string]any{"sync": map[string]any{"revision": rev}},
			"syncResult": result},
	}
}

func (s *Sim) lines(ctx context.Context, args ...string) ([]string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = s.Remote
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.Fields(string(out)), nil
}

// show reads the n files at rev that files yields with one git cat-file
// --batch, handing each to each as it streams in (nil for a file missing at
// rev), in order, until each returns false or an error.
func (s *Sim) show(ctx context.Context, rev string, n int, files func(func(string)), each func(i int, data []byte) (bool, error)) error {
	if n == 0 {
		return nil
	}
	var in bytes.Buffer
	files(func(f string) { fmt.Fprintf(&in, "%s:%s\n", rev, f) })
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "cat-file", "--batch")
	cmd.Dir = s.Remote
	cmd.Stdin = &in
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git cat-file: %w", err)
	}
	done := false // every file read
	read := func() error {
		r := bufio.NewReaderSize(out, 1<<20)
		for i := range n {
			head, err := r.ReadString('\n')
			if err != nil {
				return fmt.Errorf("git cat-file: %w", err)
			}
			f := strings.Fields(head)
			var data []byte
			switch {
			case len(f) == 2 && f[1] == "missing":
			case len(f) != 3:
				return fmt.Errorf("git cat-file: unexpected %q", head)
			default:
				size, err := strconv.Atoi(f[2])
				if err != nil {
					return fmt.Errorf("git cat-file: unexpected %q", head)
				}
				buf := make([]byte, size+1)
				if _, err := io.ReadFull(r, buf); err != nil {
					return fmt.Errorf("git cat-file: %w", err)
				}
				data = buf[:size]
			}
			if more, err := each(i, data); err != nil || !more {
				return err
			}
		}
		done = true
		return nil
	}
	if err := read(); err != nil || !done {
		cancel() // what is left unread would block git
		_ = cmd.Wait()
		return err
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git cat-file: %w", err)
	}
	return nil
}
