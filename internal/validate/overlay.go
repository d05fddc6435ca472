package validate

import (
	"io/fs"
	"strings"
	"testing/fstest"

	"github.com/strata-fleet/strata/internal/render"
)

// overlay is the repository as Argo CD will see it once the render is
// committed: its files, except that rendered/ holds what was just rendered
// in memory rather than what is on disk.
type overlay struct {
	base     fs.FS
	rendered fstest.MapFS
}

func newOverlay(base fs.FS, outs []*render.Output) overlay {
	m := fstest.MapFS{}
	for _, o := range outs {
		for _, f := range o.Files {
			m[f.Path] = &fstest.MapFile{Data: f.Data, Mode: 0o644}
		}
	}
	if len(m) == 0 {
		m[render.OutputDir] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
	}
	return overlay{base: base, rendered: m}
}

func (o overlay) Open(name string) (fs.File, error) {
	if name == render.OutputDir || strings.HasPrefix(name, render.OutputDir+"/") {
		return o.rendered.Open(name)
	}
	return o.base.Open(name)
}
