package output

import (
	"encoding/binary"
	"errors"
	"maps"
	"slices"
)

// The state's encoding is compact and quick to read, because a no-op run of
// a large fleet reads all of it (10,000 targets x 22 files): a header, the
// distinct file names once, then per target (in directory order) its
// directory, fingerprint, files, directories and files beside it
// (appendStamps).
const stateMagic = "strata render state\n"

var errBadState = errors.New("malformed render state")

// encode returns the state's bytes.
func (s *State) encode() []byte {
	index := map[string]uint64{}
	var names []string
	size := len(stateMagic) + 3*binary.MaxVarintLen64
	for dir, ts := range s.Targets {
		for _, stamps := range [][]Stamp{ts.Files, ts.Dirs, ts.Beside} {
			for _, st := range stamps {
				if _, ok := index[st.Name]; !ok {
					index[st.Name] = uint64(len(names))
					names = append(names, st.Name)
					size += binary.MaxVarintLen64 + len(st.Name)
				}
			}
		}
		size += binary.MaxVarintLen64 + len(dir) + len(ts.Fingerprint) + 3*binary.MaxVarintLen64 +
			(len(ts.Files)+len(ts.Dirs)+len(ts.Beside))*stampLen
	}
	// Growing the buffer as it fills (megabytes at 10,000 targets) costs
	// more than encoding: it starts at about the size it needs.
	b := make([]byte, 0, size)
	b = append(b, stateMagic...)
	b = binary.AppendUvarint(b, uint64(s.Version))
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, n := range names {
		b = appendString(b, n)
	}
	b = binary.AppendUvarint(b, uint64(len(s.Targets)))
	for _, dir := range slices.Sorted(maps.Keys(s.Targets)) {
		ts := s.Targets[dir]
		b = appendString(b, dir)
		b = append(b, ts.Fingerprint[:]...)
		b = appendStamps(b, ts.Files, index)
		b = appendStamps(b, ts.Dirs, index)
		b = appendStamps(b, ts.Beside, index)
	}
	return b
}

// stampLen is about as long as the encoding of a stamp gets (5 varints:
// 1 to 3 bytes each, the first of a target's a few more).
const stampLen = 14

// appendStamps appends stamps, each as varints of its name's index in
// index (which has every name), its size, the difference of its
// modification time from the stamp before it, of its change time from its
// own modification time, and of its inode from the stamp before it. The
// files of a target are written one after the other, so these differences
// are small: about 10 bytes a stamp instead of 30 (and of 48 in memory,
// where a run keeps the stamps it takes while staging: packedStamps).
func appendStamps(b []byte, stamps []Stamp, index map[string]uint64) []byte {
	b = binary.AppendUvarint(b, uint64(len(stamps)))
	var mtime int64
	var ino uint64
	for _, st := range stamps {
		b = binary.AppendUvarint(b, index[st.Name])
		b = binary.AppendVarint(b, st.Size)
		b = binary.AppendVarint(b, st.MTime-mtime)
		b = binary.AppendVarint(b, st.CTime-st.MTime)
		b = binary.AppendVarint(b, int64(st.Ino-ino))
		mtime, ino = st.MTime, st.Ino
	}
	return b
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// decodeState reads what encode wrote.
func decodeState(data []byte) (*State, error) {
	d := stateDecoder{data: data}
	if len(data) < len(stateMagic) || string(data[:len(stateMagic)]) != stateMagic {
		return nil, errBadState
	}
	d.data = data[len(stateMagic):]
	s := &State{Version: int(d.uvarint())}
	names := make([]string, d.count())
	for i := range names {
		names[i] = d.string()
	}
	n := d.count()
	s.Targets = make(map[string]TargetState, n)
	for range n {
		dir := d.string()
		var ts TargetState
		copy(ts.Fingerprint[:], d.bytes(len(ts.Fingerprint)))
		ts.Files = d.stamps(names)
		ts.Dirs = d.stamps(names)
		if beside := d.stamps(names); len(beside) > 0 {
			ts.Beside = beside
		}
		if d.err != nil {
			return nil, d.err
		}
		s.Targets[dir] = ts
	}
	if d.err != nil || len(d.data) != 0 {
		return nil, errBadState
	}
	return s, nil
}

// stamps reads what appendStamps wrote.
func (d *stateDecoder) stamps(names []string) []Stamp {
	out := make([]Stamp, d.count())
	var mtime int64
	var ino uint64
	for i := range out {
		k := d.uvarint()
		if k >= uint64(len(names)) {
			d.fail()
			return nil
		}
		st := Stamp{Name: names[k], Size: d.varint(), MTime: mtime + d.varint()}
		st.CTime = st.MTime + d.varint()
		st.Ino = ino + uint64(d.varint())
		out[i], mtime, ino = st, st.MTime, st.Ino
	}
	return out
}

// stateDecoder reads varints and strings, remembering the first error.
type stateDecoder struct {
	data []byte
	err  error
}

func (d *stateDecoder) fail() { d.err, d.data = errBadState, nil }

func (d *stateDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.data)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.data = d.data[n:]
	return v
}

func (d *stateDecoder) varint() int64 {
	v, n := binary.Varint(d.data)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.data = d.data[n:]
	return v
}

// count reads a number of things that each take at least a byte.
func (d *stateDecoder) count() int {
	n := d.uvarint()
	if n > uint64(len(d.data)) {
		d.fail()
		return 0
	}
	return int(n)
}

func (d *stateDecoder) bytes(n int) []byte {
	if n > len(d.data) {
		d.fail()
		return make([]byte, n)
	}
	b := d.data[:n]
	d.data = d.data[n:]
	return b
}

func (d *stateDecoder) string() string { return string(d.bytes(d.count())) }
