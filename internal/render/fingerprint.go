package render

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"
)

// formatVersion changes whenever strata's output for the same inputs
// changes, so that fingerprints from an older strata do not match.
const formatVersion = "strata-render-1"

// Fingerprint identifies everything the output of t depends on: the
// templates chart, config.yaml, the cluster type's defaults, the inventory
// files of the clusters that run t when their facts are values
// (fleet.ClusterFiles), the global layer's files that apply to t, and every
// file of every component that applies to t (with the chart directory of a
// component discovered from one). Equal fingerprints mean equal
// output. It reads no file and decodes nothing.
func (r *Renderer) Fingerprint(t Target) [32]byte {
	h := sha256.New()
	h.Write([]byte(formatVersion))
	h.Write(r.Chart.Digest[:])
	cfg := r.Fleet.Config.File.Digest()
	h.Write(cfg[:])
	writeString(h, t.ID())
	def := t.ClusterType.Defaults.Digest()
	h.Write(def[:])
	for _, f := range r.Fleet.ClusterFiles(t.ClusterType.Name, t.Node) {
		writeString(h, f.Path)
		d := f.Digest()
		h.Write(d[:])
	}
	if g := t.ClusterType.Global; g != nil { // config/global/: its defaults, its levels over t
		if g.Defaults != nil {
			writeString(h, g.Defaults.Path)
			d := g.Defaults.Digest()
			h.Write(d[:])
		}
		for _, l := range g.Layers(t.Node) {
			for _, f := range l.Files() {
				writeString(h, f.Path)
				d := f.Digest()
				h.Write(d[:])
			}
		}
	}
	for _, c := range t.ClusterType.Components {
		if c.Chart != nil { // its item comes from config.yaml, at this path
			writeString(h, c.Chart.Path)
		}
		writeString(h, c.Name)
		d := c.Values.Digest()
		h.Write(d[:])
		for _, l := range c.Layers(t.Node) {
			for _, f := range l.Files() {
				writeString(h, f.Path)
				d := f.Digest()
				h.Write(d[:])
			}
		}
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

func writeString(h hash.Hash, s string) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
	h.Write(n[:])
	h.Write([]byte(s))
}
