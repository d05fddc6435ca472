package promote

import (
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"
	"github.com/strata-fleet/strata/internal/yamledit"
)

// ReadMeta reads what a patch file's metadata says about the patch: its
// description, owner, ticket, creation date and the approvals recorded for
// it. A metadata field that is not a string is an error naming the file
// and line; a file without metadata has an empty one.
func ReadMeta(path string, data []byte) (*PatchMeta, error) {
	m := &PatchMeta{}
	root, err := yamledit.DocMapping(data)
	if err != nil {
		return m, nil // not a mapping: the loader reports the file itself
	}
	_, md := yamledit.Find(root, "metadata")
	if md == nil || md.Kind != yaml.MappingNode {
		return m, nil
	}
	for key, dst := range map[string]*string{"description": &m.Description, "owner": &m.Owner, "ticket": &m.Ticket, "created": &m.Created} {
		_, v := yamledit.Find(md, key)
		if v == nil {
			continue
		}
		if v.Kind != yaml.ScalarNode {
			return nil, &values.Error{Pos: values.Pos{File: path, Line: v.Line, Col: v.Column}, Path: []string{"metadata", key},
				Msg: "expected a string", Hint: "metadata: {description: <what the change is>, owner: <who>, ticket: <reference>}"}
		}
		*dst = v.Value
	}
	if m.Approvals, err = Approvals(path, data); err != nil {
		return nil, err
	}
	return m, nil
}

// planMeta is the metadata of the patch a plan moves: description, owner,
// ticket and creation date of its latest copy (the one promoted), and
// every approval recorded in any of its copies, this promotion's
// included, in the order given.
func (pl *planner) planMeta(s state, found []*fleet.Node, approvals []Approval) (*PatchMeta, error) {
	var out *PatchMeta
	var all []Approval
	for _, n := range found {
		m, err := ReadMeta(pl.fileOf(n.ID()), s[n.ID()])
		if err != nil {
			return nil, err
		}
		out = m
		all = append(all, m.Approvals...)
	}
	if out == nil {
		out = &PatchMeta{}
	}
	out.Approvals = nil
	for _, a := range append(all, approvals...) {
		if !slices.ContainsFunc(out.Approvals, func(b Approval) bool { return sameApproval(a, b) }) {
			out.Approvals = append(out.Approvals, a)
		}
	}
	return out, nil
}
