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
