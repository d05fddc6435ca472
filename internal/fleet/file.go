package fleet

import (
	"crypto/sha256"
	"sync"

	"github.com/strata-fleet/strata/internal/values"
)

// File is a YAML file of the repository: its path relative to the repository
// (slash-separated), its bytes, and its decoded value, computed once on
// first use.
type File struct {
	Path string
	Data []byte

	once  sync.Once
	value *values.Value
	err   error

	digestOnce sync.Once
	digest     [32]byte
}

// NewFile returns a File holding data.
func NewFile(path string, data []byte) *File { return &File{Path: path, Data: data} }

// Value decodes the file (once) and returns its value.
func (f *File) Value() (*values.Value, error) {
	f.once.Do(func() { f.value, f.err = values.Decode(f.Path, f.Data) })
	return f.value, f.err
}

// Mapping decodes the file and checks that it holds a non-empty mapping.
// what names the kind of file in errors ("values.yaml").
func (f *File) Mapping(what string) (*values.Value, error) {
	return f.mapping(what, f.Value)
}

// mappingUnkept is Mapping that decodes the file at each call and keeps
// nothing: for a target's own files, which a render uses once.
func (f *File) mappingUnkept(what string) (*values.Value, error) {
	return f.mapping(what, func() (*values.Value, error) { return values.Decode(f.Path, f.Data) })
}

func (f *File) mapping(what string, decode func() (*values.Value, error)) (*values.Value, error) {
	v, err := decode()
	if err != nil {
		return nil, err
	}
	if v.Kind == values.Null || (v.Kind == values.Map && len(v.Keys) == 0) {
		return nil, &values.Error{Pos: firstLine(f.Path), Msg: what + " is empty", Hint: fileHints[what]}
	}
	if v.Kind != values.Map {
		e := values.TypeError(v, nil, values.Map)
		e.Hint = fileHints[what]
		return nil, e
	}
	return v, nil
}

// fileHints say what each kind of file holds, for errors about its content
// as a whole.
var fileHints = map[string]string{
	"config.yaml":   "it declares dimensions, sequence and cluster_types (strata init writes an example)",
	"defaults.yaml": "it holds the default item of each section: applications: {default: {...}}",
	"values.yaml":   "it holds the component's base values: applications: {<name>: {...}}",
	"override.yaml": "it holds the values it changes at this level, as a mapping; delete the file if it has none",
	"patch":         "a patch holds the values it changes, as a mapping; delete the file if it has none",
}

// firstLine is the position of a file as a whole: line 1, column 1.
func firstLine(file string) values.Pos { return values.Pos{File: file, Line: 1, Col: 1} }

// Digest returns the SHA-256 of the file's bytes, computed once.
func (f *File) Digest() [32]byte {
	f.digestOnce.Do(func() { f.digest = sha256.Sum256(f.Data) })
	return f.digest
}
