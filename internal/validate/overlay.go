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
	root     string // the output root the rendered files are under
}

func newOverlay(base fs.FS, outs []*render.Output, outRoot string) overlay {
	m := fstest.MapFS{}
	for _, o := range outs {
		for _, f := range o.Files {
			m[f.Path] = &fstest.MapFile{Data: f.Data, Mode: 0o644}
		}
	}
	if len(m) == 0 {
		m[outRoot] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
	}
	return overlay{base: base, rendered: m, root: outRoot}
}

func (o overlay) Open(name string) (fs.File, error) {
	if name == o.root || strings.HasPrefix(name, o.root+"/") {
		return o.rendered.Open(name)
	}
	return o.base.Open(name)
}
