package promote

import (
	"bytes"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/suggest"
)

// PatchMeta is what a new patch's metadata says about it. Rendering strips
// a patch's metadata; promotion carries it along with the patch, and the
// approvals of gates are added to it (see Approval).
type PatchMeta struct {
	Description string `json:"description" yaml:"description"`
	Owner       string `json:"owner,omitempty" yaml:"owner,omitempty"`
	Ticket      string `json:"ticket,omitempty" yaml:"ticket,omitempty"`
	Created     string `json:"created,omitempty" yaml:"created"` // a date, YYYY-MM-DD
	// Approvals are the gates' approvals recorded in the patch (read by
	// ReadMeta; a new patch has none).
	Approvals []Approval `json:"approvals,omitempty" yaml:"-"`
}

// NewPatchOptions says which patch to start, where, and with what.
type NewPatchOptions struct {
	ClusterType, Component string
	// At is the node the patch starts at (a node ID such as
	// "integration/int-sector-1").
	At   string
	Meta PatchMeta
	// Body is the change, a YAML mapping of the component's values; nil
	// writes a commented example to fill in (the loader refuses the patch
	// until it holds a change).
	Body []byte
	Now  time.Time
}

// NewPatch is a patch file to create.
type NewPatch struct {
	Patch string `json:"patch"` // patch-NNN
	Path  string `json:"path"`  // slash path from the repository root
	Node  string `json:"node"`
	Data  []byte `json:"-"`
	// Empty says the body is still to be written.
	Empty bool `json:"empty"`
}

// PrepareNewPatch returns the next free patch of a component (one more than
// the highest patch-NNN anywhere in it, so that it names no patch being
// rolled out) at a node of the sequence, with its metadata.
func PrepareNewPatch(f *fleet.Fleet, opts NewPatchOptions) (*NewPatch, error) {
	pl, err := newPlanner(f, Options{ClusterType: opts.ClusterType, Component: opts.Component, Patch: "patch-new"})
	if err != nil {
		return nil, err
	}
	var at *fleet.Node
	for _, n := range pl.walk {
		if n.ID() == strings.Trim(opts.At, "/") {
			at = n
		}
	}
	if at == nil {
		ids := make([]string, 0, len(pl.walk))
		for _, n := range pl.walk {
			ids = append(ids, n.ID())
		}
		return nil, suggest.UnknownFlag("--at", "node", opts.At, ids)
	}
	if strings.TrimSpace(opts.Meta.Description) == "" {
		return nil, fmt.Errorf("a new patch needs a description (--description): it says what the change is in status, in review and in the fold")
	}
	body, err := patchBody(opts.Body)
	if err != nil {
		return nil, err
	}
	next, err := nextPatchNumber(pl.comp)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("patch-%03d", next)
	meta := opts.Meta
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	meta.Created = now.UTC().Format(time.DateOnly)
	var head bytes.Buffer
	enc := yaml.NewEncoder(&head)
	enc.SetIndent(2)
	if err := enc.Encode(map[string]PatchMeta{"metadata": meta}); err != nil {
		return nil, err
	}
	head.WriteByte('\n')
	p := &NewPatch{Patch: name, Node: at.ID(), Path: path.Join(pl.comp.Dir, at.ID(), name+".yaml"), Empty: opts.Body == nil}
	p.Data = append(head.Bytes(), body...)
	return p, nil
}

// nextPatchNumber is one more than the highest N of the component's
// patch-N.yaml files, whatever their level, and of the patches its history
// says were folded: a number names one change for good, in commits,
// trailers and the history, so it is never given again.
func nextPatchNumber(c *fleet.Component) (int, error) {
	folded, err := foldedPatches(c)
	if err != nil {
		return 0, err
	}
	highest := 0
	consider := func(name string) {
		id := strings.TrimSuffix(strings.TrimPrefix(name, "patch-"), ".yaml")
		if n, err := strconv.Atoi(id); err == nil && n > highest {
			highest = n
		}
	}
	for _, lv := range c.Levels {
		for _, file := range lv.Patches {
			consider(path.Base(file.Path))
		}
	}
	for _, name := range folded {
		consider(name)
	}
	return highest + 1, nil
}

// exampleBody is what a new patch without a body says to fill in.
const exampleBody = `# The change this patch rolls out: values of the component, merged over
# values.yaml and the overrides at this level. For example:
#
# applications:
#   my-app:
#     source:
#       targetRevision: 1.2.3
`

// patchBody checks a body (a mapping without a metadata key) and returns it
// to follow the metadata; nil gives the example.
func patchBody(body []byte) ([]byte, error) {
	if body == nil {
		return []byte(exampleBody), nil
	}
	var m map[string]any
	if err := yaml.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("the patch's change is not a YAML mapping: %w", err)
	}
	switch {
	case len(m) == 0:
		return nil, fmt.Errorf("the patch's change is empty: give the values it changes")
	case m["metadata"] != nil:
		return nil, fmt.Errorf("the patch's change has a metadata key: metadata comes from --description, --owner and --ticket")
	}
	if !strings.HasSuffix(string(body), "\n") {
		body = append(body, '\n')
	}
	return body, nil
}
