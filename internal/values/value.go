package values

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
)

// Kind is the type of a Value.
type Kind uint8

// The kinds of Value.
const (
	Null Kind = iota
	Bool
	Int
	Float
	String
	Map
	List
)

var kindNames = [...]string{"null", "boolean", "integer", "number", "string", "mapping", "list"}

func (k Kind) String() string { return kindNames[k] }

// Pos is where a value was set: a slash-separated file path relative to the
// fleet repository, and a 1-based line and column.
type Pos struct {
	File string
	Line int
	Col  int
}

func (p Pos) String() string {
	if p.File == "" {
		return "(built in)"
	}
	file := Printable(p.File)
	if p.Line == 0 {
		return file
	}
	return fmt.Sprintf("%s:%d:%d", file, p.Line, p.Col)
}

// Printable returns s as is when every character of it prints as itself,
// else quoted with Go's escapes: text from the repository (file and key
// names) never reaches a terminal as control characters, escape sequences
// or line breaks that could fake a line of output.
func Printable(s string) string {
	for _, r := range s {
		if !strconv.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// Value is a node of a value tree. Scalars hold their value in Text (the
// string itself for strings, the canonical spelling for other kinds); maps
// hold Keys and Vals in order; lists hold Items.
type Value struct {
	Kind  Kind
	Text  string
	Keys  []string
	Vals  []*Value
	Items []*Value
	Pos   Pos
	// KeyPos is where each key of a decoded mapping was written, in the
	// order of Keys. Trees built or merged afterwards may lack it: use
	// KeyPosAt.
	KeyPos []Pos

	// shared memoizes Shared (a pointer, not a sync.Once and the value:
	// a node is 160 bytes, not 192, and a render allocates millions).
	shared atomic.Pointer[any]
}

// KeyPosAt returns where the i-th key of a mapping was written, or the
// position of its value when that is not known.
func (v *Value) KeyPosAt(i int) Pos {
	if i < len(v.KeyPos) && i < len(v.Keys) {
		return v.KeyPos[i]
	}
	return v.Vals[i].Pos
}

// NewMap returns an empty mapping set at pos.
func NewMap(pos Pos) *Value { return &Value{Kind: Map, Pos: pos} }

// NewString returns a string scalar set at pos.
func NewString(s string, pos Pos) *Value { return &Value{Kind: String, Text: s, Pos: pos} }

// Get returns the value under key in a mapping, or nil.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Map {
		return nil
	}
	for i, k := range v.Keys {
		if k == key {
			return v.Vals[i]
		}
	}
	return nil
}

// Lookup follows a path of mapping keys and returns the value there, or nil.
func (v *Value) Lookup(path ...string) *Value {
	for _, k := range path {
		v = v.Get(k)
		if v == nil {
			return nil
		}
	}
	return v
}

// Set appends key, or replaces its value in place when it exists. Only for
// trees under construction.
func (v *Value) Set(key string, val *Value) {
	for i, k := range v.Keys {
		if k == key {
			v.Vals[i] = val
			return
		}
	}
	v.Keys = append(v.Keys, key)
	v.Vals = append(v.Vals, val)
}

// Delete returns a copy of the mapping v without key.
func (v *Value) Delete(key string) *Value {
	out := &Value{Kind: Map, Pos: v.Pos}
	for i, k := range v.Keys {
		if k != key {
			out.Keys = append(out.Keys, k)
			out.Vals = append(out.Vals, v.Vals[i])
		}
	}
	return out
}

// Len is the number of entries of a mapping or items of a list.
func (v *Value) Len() int {
	if v == nil {
		return 0
	}
	if v.Kind == List {
		return len(v.Items)
	}
	return len(v.Keys)
}

// IsEmpty reports whether v is null, an empty mapping or an empty list.
func (v *Value) IsEmpty() bool {
	return v == nil || v.Kind == Null || ((v.Kind == Map || v.Kind == List) && v.Len() == 0)
}

// Interface converts v to the Go values Helm's engine expects, typed as Helm
// itself reads a values file: mappings as map[string]any, lists as []any and
// every number as float64.
func (v *Value) Interface() any {
	switch v.Kind {
	case Null:
		return nil
	case Bool:
		return v.Text == "true"
	case Int, Float:
		f, _ := v.Float()
		return f
	case String:
		return v.Text
	case Map:
		m := make(map[string]any, len(v.Keys))
		for i, k := range v.Keys {
			m[k] = v.Vals[i].Interface()
		}
		return m
	default:
		l := make([]any, len(v.Items))
		for i, it := range v.Items {
			l[i] = it.Interface()
		}
		return l
	}
}

// Shared is Interface computed once per node: nodes shared between trees
// (merge shares unchanged subtrees) convert to the very same Go maps and
// slices. Callers must not modify what it returns.
func (v *Value) Shared() any {
	if p := v.shared.Load(); p != nil {
		return *p
	}
	var x any
	switch v.Kind {
	case Map:
		m := make(map[string]any, len(v.Keys))
		for i, k := range v.Keys {
			m[k] = v.Vals[i].Shared()
		}
		x = m
	case List:
		l := make([]any, len(v.Items))
		for i, it := range v.Items {
			l[i] = it.Shared()
		}
		x = l
	default:
		x = v.Interface()
	}
	// Of two goroutines that computed it at once, both return the first
	// one stored.
	v.shared.CompareAndSwap(nil, &x)
	return *v.shared.Load()
}

// Float returns the numeric value of an Int or Float scalar.
func (v *Value) Float() (float64, bool) {
	switch v.Kind {
	case Int:
		if i, err := strconv.ParseInt(v.Text, 10, 64); err == nil {
			return float64(i), true
		}
		f, err := strconv.ParseFloat(v.Text, 64)
		return f, err == nil
	case Float:
		switch v.Text {
		case ".inf":
			return math.Inf(1), true
		case "-.inf":
			return math.Inf(-1), true
		case ".nan":
			return math.NaN(), true
		}
		f, err := strconv.ParseFloat(v.Text, 64)
		return f, err == nil
	}
	return 0, false
}

// Equal reports whether a and b hold the same data, ignoring positions.
func Equal(a, b *Value) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case Map:
		if len(a.Keys) != len(b.Keys) {
			return false
		}
		for i, k := range a.Keys {
			if !Equal(a.Vals[i], b.Get(k)) {
				return false
			}
		}
		return true
	case List:
		if len(a.Items) != len(b.Items) {
			return false
		}
		for i := range a.Items {
			if !Equal(a.Items[i], b.Items[i]) {
				return false
			}
		}
		return true
	}
	return a.Text == b.Text
}

// Leaf is a scalar, empty mapping or list of a tree with its dotted path.
type Leaf struct {
	Path  []string
	Value *Value
}

// Leaves lists the leaves of v in order: scalars, lists (whole) and empty
// mappings, each with its key path.
func (v *Value) Leaves() []Leaf {
	var out []Leaf
	var walk func(path []string, n *Value)
	walk = func(path []string, n *Value) {
		if n.Kind == Map && len(n.Keys) > 0 {
			for i, k := range n.Keys {
				walk(append(path[:len(path):len(path)], k), n.Vals[i])
			}
			return
		}
		out = append(out, Leaf{Path: path, Value: n})
	}
	walk(nil, v)
	return out
}

// PathString joins a key path with dots, quoting keys that contain dots.
func PathString(path []string) string {
	var b strings.Builder
	for i, k := range path {
		if i > 0 {
			b.WriteByte('.')
		}
		if strings.ContainsAny(k, ". ") || k == "" || Printable(k) != k {
			b.WriteString(strconv.Quote(k))
		} else {
			b.WriteString(k)
		}
	}
	return b.String()
}
