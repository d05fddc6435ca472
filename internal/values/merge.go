package values

// Merge layers over onto base following the package's merge rules and returns
// the result. Inputs are not modified; unchanged subtrees are shared.
func Merge(base, over *Value) *Value {
	if base == nil {
		return over
	}
	if over == nil {
		return base
	}
	if base.Kind != Map || over.Kind != Map {
		return over
	}
	out := &Value{
		Kind: Map,
		Pos:  over.Pos,
		Keys: make([]string, len(base.Keys), len(base.Keys)+len(over.Keys)),
		Vals: make([]*Value, len(base.Vals), len(base.Keys)+len(over.Keys)),
	}
	copy(out.Keys, base.Keys)
	copy(out.Vals, base.Vals)
	var index map[string]int
	if len(base.Keys) > 8 {
		index = make(map[string]int, len(base.Keys))
		for i, k := range base.Keys {
			index[k] = i
		}
	}
	for j, k := range over.Keys {
		i := -1
		if index != nil {
			if n, ok := index[k]; ok {
				i = n
			}
		} else {
			for n, bk := range base.Keys {
				if bk == k {
					i = n
					break
				}
			}
		}
		if i < 0 {
			out.Keys = append(out.Keys, k)
			out.Vals = append(out.Vals, over.Vals[j])
			continue
		}
		out.Vals[i] = Merge(out.Vals[i], over.Vals[j])
	}
	return out
}

// MergeAll is Merge of each of overs in turn onto base,
// Merge(Merge(base, overs[0]), overs[1])..., made in one pass: a mapping
// that many layers set (a target's applications, an item from each of its
// components) is built once from all of them, where merging layer by layer
// copies it again at each layer (quadratic in the layers).
func MergeAll(base *Value, overs ...*Value) *Value {
	return mergeAll(append([]*Value{base}, overs...))
}

// mergeAll is the left fold of Merge over vs. Merge returns a layer whole
// where it, or the result so far, is not a mapping, so the fold restarts
// there; what follows is a run of mappings merged key by key.
func mergeAll(vs []*Value) *Value {
	var last *Value // the fold's result before run
	var run []*Value
	for _, v := range vs {
		switch {
		case v == nil:
		case v.Kind != Map:
			last, run = v, nil
		default:
			run = append(run, v)
		}
	}
	switch len(run) {
	case 0:
		return last
	case 1:
		return run[0]
	}
	out := &Value{Kind: Map, Pos: run[len(run)-1].Pos}
	index := map[string]int{}
	var layers [][]*Value // the values each layer gives out.Keys[i]
	for _, m := range run {
		for j, k := range m.Keys {
			i, ok := index[k]
			if !ok {
				i = len(out.Keys)
				index[k] = i
				out.Keys = append(out.Keys, k)
				layers = append(layers, nil)
			}
			layers[i] = append(layers[i], m.Vals[j])
		}
	}
	out.Vals = make([]*Value, len(layers))
	for i, l := range layers {
		out.Vals[i] = mergeAll(l)
	}
	return out
}
