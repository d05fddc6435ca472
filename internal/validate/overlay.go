package validate

import (
	"io/fs"
	"strings"
	"testing/fstest"

	"github.com/strata-fleet/strata/internal/render"
)

// overlay is the repository as Argo CD will see it once the render is
// committed: its files, except that rendered/ holds what was just rendered
// in memory rather than what is on disk (outs are in chart form: a
// target's plain manifests, layout.manifests, are made from them here).
type overlay struct {
	base     fs.FS
	rendered fstest.MapFS
	root     string // the output root the rendered files are under
}

func newOverlay(base fs.FS, outs []*render.Output, outRoot string) (overlay, error) {
	m := fstest.MapFS{}
	for _, o := range outs {
		files := o.Files
		if o.Target.ClusterType.Layout.Plain() {
			var err error
			if files, err = render.PlainFiles(o); err != nil {
				return overlay{}, err
			}
		}
		for _, f := range append(files, o.Beside...) {
			m[f.Path] = &fstest.MapFile{Data: f.Data, Mode: 0o644}
		}
	}
	if len(m) == 0 {
		m[outRoot] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
	}
	return overlay{base: base, rendered: m, root: outRoot}, nil
}

func (o overlay) Open(name string) (fs.File, error) {
	if name == o.root || strings.HasPrefix(name, o.root+"/") {
		return o.rendered.Open(name)
	}
	return o.base.Open(name)
}
