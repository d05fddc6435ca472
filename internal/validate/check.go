package validate

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/values"
)

// Options configures Check.
type Options struct {
	// FS reads the fleet repository.
	FS fs.FS
	// Progress, when set, is called as targets render.
	Progress func(done, total int)
}

// Check loads the fleet in opts.FS, renders every target in memory (nothing
// is written) and validates the result.
func Check(opts Options) (*Report, error) {
	f, err := fleet.Load(opts.FS)
	if err != nil {
		return nil, err
	}
	chart, err := render.LoadChart(opts.FS)
	if err != nil {
		return nil, err
	}
	r := &render.Renderer{Fleet: f, Chart: chart}
	outs, err := r.RenderAll(r.Targets(), opts.Progress)
	if err != nil {
		return nil, err
	}
	return Validate(f, opts.FS, outs)
}

// Validate checks rendered targets: each resource against the Argo CD
// schemas, the sources that point into the repository (fsys, seen with
// rendered/ as outs has it), strata's policies, and the fleet's same-level
// patch conflicts.
func Validate(f *fleet.Fleet, fsys fs.FS, outs []*render.Output) (*Report, error) {
	s, err := ArgoCD()
	if err != nil {
		return nil, err
	}
	v := &validator{
		schemas: s,
		fleet:   f,
		sources: &sourceChecker{fsys: newOverlay(fsys, outs), done: map[string]*sourceOnce{}},
		cache:   map[[32]byte][]Problem{},
	}
	if f.Config.Repository != nil && f.Config.Repository.URL != "" {
		v.sources.repo = repoKey(f.Config.Repository.URL)
	}
	rep := &Report{ArgoCD: s.Source.Version, Targets: len(outs)}
	results := make([][]Finding, len(outs))
	var resources atomic.Int64
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(outs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(outs) {
					return
				}
				var n int
				results[i], n = v.target(outs[i])
				resources.Add(int64(n))
			}
		}()
	}
	wg.Wait()
	for _, r := range results {
		rep.Findings = append(rep.Findings, r...)
	}
	cf, err := conflicts(f)
	if err != nil {
		return nil, err
	}
	rep.Findings = append(rep.Findings, cf...)
	rep.Resources = int(resources.Load())
	sortFindings(rep.Findings)
	if rep.Findings == nil {
		rep.Findings = []Finding{}
	}
	return rep, nil
}

type validator struct {
	schemas *Schemas
	fleet   *fleet.Fleet
	sources *sourceChecker

	mu sync.Mutex
	// cache holds the problems of each distinct resource content: many
	// targets render identical files.
	cache map[[32]byte][]Problem
}

// resource is a rendered resource of a target.
type rendered struct {
	file string
	data []byte
	obj  map[string]any
	kind string
	name string
}

// target checks the resources of one rendered target.
func (v *validator) target(out *render.Output) ([]Finding, int) {
	var findings []Finding
	var resources []*rendered
	for _, file := range out.Files {
		if !strings.Contains(file.Path, "/templates/") {
			continue
		}
		obj, err := Decode(file.Data)
		if err != nil {
			findings = append(findings, Finding{Severity: Error, Check: CheckSchema, File: file.Path,
				Message: fmt.Sprintf("not a resource the API machinery can read: %v", err)})
			continue
		}
		r := &rendered{file: file.Path, data: file.Data, obj: obj}
		r.kind, _ = obj["kind"].(string)
		if md, ok := obj["metadata"].(map[string]any); ok {
			r.name, _ = md["name"].(string)
		}
		resources = append(resources, r)
		findings = append(findings, v.schema(out, r)...)
		findings = append(findings, v.sourceFindings(out, r)...)
	}
	findings = append(findings, v.policies(out, resources)...)
	return findings, len(resources)
}

// schema checks a resource against the CRD schemas.
func (v *validator) schema(out *render.Output, r *rendered) []Finding {
	key := sha256.Sum256(r.data)
	v.mu.Lock()
	problems, done := v.cache[key]
	v.mu.Unlock()
	if !done {
		obj, err := Decode(r.data)
		if err != nil {
			return nil // reported by target
		}
		var ok bool
		problems, ok = v.schemas.Check(obj)
		if !ok {
			problems = []Problem{{Message: notArgoCD}}
		}
		v.mu.Lock()
		v.cache[key] = problems
		v.mu.Unlock()
	}
	if len(problems) == 0 {
		return nil
	}
	doc, _ := values.Decode(r.file, r.data)
	var findings []Finding
	for _, p := range problems {
		fd := Finding{Severity: Error, Check: CheckSchema, File: r.file, Path: p.Path, Message: p.Message}
		if p.Message == notArgoCD {
			fd.Severity = Warning
			fd.Message = fmt.Sprintf("%s %s is not an Argo CD resource: not checked", r.obj["apiVersion"], r.kind)
		}
		v.locate(&fd, out, r, doc, parsePath(p.Path))
		findings = append(findings, fd)
	}
	return findings
}

const notArgoCD = "\x00not Argo CD"

// locate fills in the line of the field in the rendered file and the config
// position that set it.
func (v *validator) locate(fd *Finding, out *render.Output, r *rendered, doc *values.Value, segs []string) {
	if doc != nil {
		if n, _ := deepest(doc, segs); n != nil && n.Pos.Line > 0 {
			fd.Line = n.Pos.Line
		}
	}
	if pos, ok := sourcePos(out.Values, r.kind, r.name, segs); ok {
		fd.Source = pos.String()
	}
}

// sourceFindings checks the sources of a resource that point into the
// repository.
func (v *validator) sourceFindings(out *render.Output, r *rendered) []Finding {
	var findings []Finding
	spec, _ := appSpec(r.obj)
	ns := ""
	if d, ok := spec["destination"].(map[string]any); ok {
		ns, _ = d["namespace"].(string)
	}
	for _, s := range sourcesOf(r.obj) {
		res := v.sources.check(s, r.name, ns)
		if res.msg == "" {
			continue
		}
		fd := Finding{Severity: res.severity, Check: CheckSource, File: r.file, Path: s.field + ".path", Message: res.msg}
		doc, _ := values.Decode(r.file, r.data)
		v.locate(&fd, out, r, doc, parsePath(fd.Path))
		findings = append(findings, fd)
	}
	return findings
}
