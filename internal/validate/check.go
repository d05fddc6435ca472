package validate

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/strata-fleet/strata/internal/diff"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/parallel"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/values"
)

// Options configures Check.
type Options struct {
	// FS reads the fleet repository.
	FS fs.FS
	// Dir is the fleet repository's directory in its Git clone: a source
	// of the repository whose targetRevision is another revision than the
	// branch (a pin) is checked in the tree Git holds at that revision
	// (revisions.go). "", or a directory that is not in a Git clone with
	// a commit, checks every source in FS.
	Dir string
	// Progress, when set, is called as targets render.
	Progress func(done, total int)
}

// Check loads the fleet in opts.FS, renders every target in memory (nothing
// is written) and validates the result.
func Check(opts Options) (*Report, error) {
	r, err := render.Load(opts.FS)
	if err != nil {
		return nil, err
	}
	// References to missing keys are findings (missingReferences), which
	// tell a guarded reference from one that renders '', whatever
	// config.yaml's render.missingKeys says: the render here is lenient, as
	// the reference generator's, so that it reports them all with the
	// other findings rather than stop at the first.
	r.Fleet.Config.Render.MissingKeys = fleet.MissingKeysIgnore
	// Plain manifests (layout.manifests) are the chart's resources as Argo
	// CD renders them: validate checks them in the chart, where their
	// escapes and positions are.
	r.ChartForm = true
	f := r.Fleet
	outs, err := r.RenderAll(r.Targets(), opts.Progress)
	if err != nil {
		return nil, err
	}
	dir := opts.Dir
	if dir != "" {
		if _, err := diff.Commit(dir, "HEAD"); err != nil {
			dir = "" // no history: there is no other revision to read
		}
	}
	return validate(f, opts.FS, outs, dir)
}

// Validate checks rendered targets: each resource against the Argo CD
// schemas, the sources that point into the repository (fsys, seen with
// rendered/ as outs has it), strata's policies, the fleet's same-level
// patch conflicts, the patch fields a more specific file shadows, the
// names that two clusters of the inventory give resources in one Argo CD,
// the projects of the clusters' roots that their Argo CD lacks, and what
// config.yaml's charts: leaves aside.
func Validate(f *fleet.Fleet, fsys fs.FS, outs []*render.Output) (*Report, error) {
	return validate(f, fsys, outs, "")
}

// validate is Validate checking the sources of the repository at their own
// revisions in the Git clone at dir ("": all of them in fsys).
func validate(f *fleet.Fleet, fsys fs.FS, outs []*render.Output, dir string) (*Report, error) {
	s, err := ArgoCD()
	if err != nil {
		return nil, err
	}
	ov, err := newOverlay(fsys, outs, f.Config.OutputRoot())
	if err != nil {
		return nil, err
	}
	v := &validator{
		schemas: s,
		fleet:   f,
		sources: newSourceChecker(f, ov, dir),
		docs:    map[[32]byte]*doc{},
	}
	rep := &Report{ArgoCD: s.Source.Version, Targets: len(outs)}
	results := make([][]Finding, len(outs))
	placed := make([][]*rendered, len(outs))
	var resources atomic.Int64
	parallel.Each(runtime.GOMAXPROCS(0), len(outs), func(i int) {
		results[i], placed[i] = v.target(outs[i])
		resources.Add(int64(len(placed[i])))
	})
	for _, r := range results {
		rep.Findings = append(rep.Findings, r...)
	}
	rep.Findings = append(rep.Findings, missingReferences(f, outs)...)
	rep.Findings = append(rep.Findings, collisions(f, outs, placed)...)
	rep.Findings = append(rep.Findings, projects(f, outs, placed)...)
	cf, err := conflicts(f)
	if err != nil {
		return nil, err
	}
	rep.Findings = append(rep.Findings, cf...)
	sh, err := shadows(f)
	if err != nil {
		return nil, err
	}
	rep.Findings = append(rep.Findings, sh...)
	ch, err := charts(f)
	if err != nil {
		return nil, err
	}
	rep.Findings = append(rep.Findings, ch...)
	plainFiles(f, outs, rep.Findings)
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
	// docs holds each distinct resource content, decoded and checked once:
	// many targets render identical files.
	docs map[[32]byte]*doc
}

// doc is a distinct rendered resource content: the object as the API
// machinery decodes it (read-only: shared by the targets that render it) and
// what the schemas find wrong with it.
type doc struct {
	once     sync.Once
	obj      map[string]any
	err      error
	problems []Problem
}

// doc decodes and checks data, once per distinct content.
func (v *validator) doc(data []byte) *doc {
	key := sha256.Sum256(data)
	v.mu.Lock()
	d := v.docs[key]
	if d == nil {
		d = &doc{}
		v.docs[key] = d
	}
	v.mu.Unlock()
	d.once.Do(func() {
		if d.obj, d.err = Decode(data); d.err != nil {
			return
		}
		// Check prunes and defaults what it checks: give it a copy.
		problems, ok := v.schemas.Check(k8sruntime.DeepCopyJSON(d.obj))
		if !ok {
			problems = []Problem{{Message: notArgoCD}}
		}
		d.problems = problems
	})
	return d
}

// rendered is a rendered resource of a target.
type rendered struct {
	file string
	data []byte
	obj  map[string]any // read-only
	kind string
	name string
	// item is the key of the values item that renders it (the name,
	// unless names are not the keys: render.Renderer.ItemsByName).
	item string
	doc  *values.Value // the file with positions, decoded when needed
}

// target checks the resources of one rendered target, and returns them.
func (v *validator) target(out *render.Output) ([]Finding, []*rendered) {
	var findings []Finding
	var resources []*rendered
	// Without an error here: the target has just rendered.
	byName, _ := (&render.Renderer{Fleet: v.fleet}).ItemsByName(out.Target, out.Values)
	for _, file := range out.Files {
		if !strings.Contains(file.Path, "/templates/") {
			continue
		}
		d := v.doc(file.Data)
		if d.err != nil {
			findings = append(findings, Finding{Severity: Error, Check: CheckSchema, File: file.Path,
				Message: fmt.Sprintf("not a resource the API machinery can read: %v", d.err)})
			continue
		}
		r := &rendered{file: file.Path, data: file.Data, obj: d.obj}
		r.kind, _ = d.obj["kind"].(string)
		if md, ok := d.obj["metadata"].(map[string]any); ok {
			r.name, _ = md["name"].(string)
		}
		r.item = r.name
		if it, ok := byName[r.name]; ok {
			r.item = it.Key
		}
		resources = append(resources, r)
		findings = append(findings, v.schema(out, r, d.problems)...)
		findings = append(findings, v.sourceFindings(out, r)...)
		findings = append(findings, v.escaping(out, r)...)
		findings = append(findings, v.secretKeys(out, r)...)
	}
	findings = append(findings, v.policies(out, resources)...)
	return findings, resources
}

// plainFiles points the findings about targets of plain manifests
// (layout.manifests), checked in the chart form, at the file that holds
// the resource and the line there (render.PlainLine), the field path as
// it was.
func plainFiles(f *fleet.Fleet, outs []*render.Output, findings []Finding) {
	if !f.Config.Layout.Plain() {
		return
	}
	byDir := make(map[string]*render.Output, len(outs))
	for _, o := range outs {
		byDir[o.Target.Dir()] = o
	}
	starts := map[string]int{}           // by template: the plain file's line of its line 1
	plains := map[string][]render.File{} // by target directory: render.PlainFiles, made once
	for i, fd := range findings {
		j := strings.LastIndex(fd.File, "/templates/")
		if j < 0 || byDir[fd.File[:j]] == nil {
			continue
		}
		dir := fd.File[:j]
		name := strings.TrimSuffix(fd.File[j+len("/templates/"):], ".yaml")
		plain := dir + "/" + f.Config.Layout.ManifestFile(name)
		start, ok := starts[fd.File]
		if !ok {
			if _, made := plains[dir]; !made {
				plains[dir], _ = render.PlainFiles(byDir[dir]) // none on an error: no line
			}
			start = plainStart(plains[dir], byDir[dir].Files, fd.File, plain)
			starts[fd.File] = start
		}
		findings[i].File = plain
		if findings[i].Line = 0; fd.Line > 0 && start > 0 {
			findings[i].Line = start + fd.Line - 1
		}
	}
}

// plainStart is the line of plain, one of the plain files, at which the
// chart template tmpl (one of chart) has its line 1; 0 when not known.
func plainStart(files, chart []render.File, tmpl, plain string) int {
	i := slices.IndexFunc(files, func(f render.File) bool { return f.Path == plain })
	k := slices.IndexFunc(chart, func(f render.File) bool { return f.Path == tmpl })
	if i < 0 || k < 0 {
		return 0
	}
	return render.PlainLine(files[i], chart[k])
}

// schema turns the problems the schemas find in a resource into findings.
func (v *validator) schema(out *render.Output, r *rendered, problems []Problem) []Finding {
	var findings []Finding
	for _, p := range problems {
		fd := Finding{Severity: Error, Check: CheckSchema, File: r.file, Path: p.Path, Message: p.Message}
		if p.Message == notArgoCD {
			fd.Severity = Warning
			fd.Message = fmt.Sprintf("%v %s is not an Argo CD resource: not checked", r.obj["apiVersion"], r.kind)
		}
		v.locate(&fd, out, r)
		findings = append(findings, fd)
	}
	return findings
}

const notArgoCD = "\x00not Argo CD"

// locate fills in the line of the finding's field in the rendered file and
// the config position that set it.
func (v *validator) locate(fd *Finding, out *render.Output, r *rendered) {
	segs := parsePath(fd.Path)
	if r.doc == nil {
		r.doc, _ = values.Decode(r.file, r.data)
	}
	if r.doc != nil {
		if n, _ := deepest(r.doc, segs); n != nil && n.Pos.Line > 0 {
			fd.Line = n.Pos.Line
		}
	}
	if pos, ok := sourcePos(out.Values, r.kind, r.item, segs); ok {
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
		v.locate(&fd, out, r)
		findings = append(findings, fd)
	}
	return findings
}
