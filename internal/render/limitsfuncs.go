package render

// The memory the template functions of the renders in progress make,
// counted. A string doubled in a loop (`{{ $s = cat $s $s }}`) or lists
// appended without end grow by functions that each make less than the
// size limit; the heap watch (limits.go) sees them only every memoryCheck,
// after an allocation that may double the heap, and cannot stop the
// render. So every function of sprig (and text/template's print and
// println) that makes a string, a list or a map runs wrapped:
//
//   - before the call, it fails when the time is up, and when its string
//     arguments (what a concatenation makes at least) would take what the
//     renders in progress made over half the memory limit;
//   - after it, what it made counts, process-wide, until its target's
//     render ends: over half the memory limit, the render fails.
//
// What is counted includes garbage, so the count bounds what templates can
// hold; the other half of the limit is for the rest of strata. The bounded
// functions (boundedfuncs.go) count what they make too.

import (
	"fmt"
	"reflect"
	"sync/atomic"
	"text/template"
)

// inFlight is what the template functions of the renders in progress
// made, in bytes.
var inFlight atomic.Int64

// account counts n more bytes made by fn, and fails when the renders in
// progress made over half the memory limit.
func (b *budget) account(fn string, n int64) error {
	return b.accountAs(n, func() string { return fn + " would take" })
}

// accountAs is account, with what(), followed by the total, saying what
// went over.
func (b *budget) accountAs(n int64, what func() string) error {
	if n <= 0 {
		return b.check()
	}
	b.madeBytes.Add(n)
	if total := inFlight.Add(n); total > b.limits.Memory/2 {
		return b.overMemory(what(), total)
	}
	return b.check()
}

// ahead fails when a function's arguments of n bytes would take what the
// renders in progress made over half the memory limit, before the call.
func (b *budget) ahead(fn string, n int64) error {
	if total := inFlight.Load() + n; n > 0 && total > b.limits.Memory/2 {
		return b.overMemory(fn+" would take", total)
	}
	return b.check()
}

func (b *budget) overMemory(what string, total int64) error {
	return b.fail(b.limitErr("memory", fmt.Sprintf("%s what template functions made to %s in the targets rendering (half the limit is theirs)", what, byteCount(total))))
}

// release uncounts what the functions of b's render made, once it ended.
func (b *budget) release() { inFlight.Add(-b.madeBytes.Swap(0)) }

var (
	errorType  = reflect.TypeFor[error]()
	countedFns = countedFuncs()
)

// countedFuncs are the names and functions that are wrapped: sprig's and
// text/template's print and println, those that return something that
// holds memory.
func countedFuncs() map[string]any {
	out := map[string]any{"print": fmt.Sprint, "println": fmt.Sprintln}
	for name, fn := range sprigFuncs {
		t := reflect.TypeOf(fn)
		if t.NumOut() == 0 {
			continue
		}
		switch t.Out(0).Kind() {
		case reflect.String, reflect.Slice, reflect.Map, reflect.Interface:
			out[name] = fn
		}
	}
	return out
}

// counted returns the counted functions for renders under b.
func (b *budget) counted() template.FuncMap {
	m := make(template.FuncMap, len(countedFns)+16)
	for name, fn := range countedFns {
		m[name] = b.wrap(name, fn)
	}
	return m
}

// wrap returns fn counted: typed closures for the common shapes, reflection
// for the others. The wrapped function returns an error as well.
func (b *budget) wrap(name string, fn any) any {
	switch f := fn.(type) {
	case func(string) string:
		return func(s string) (string, error) {
			if err := b.ahead(name, int64(len(s))); err != nil {
				return "", err
			}
			out := f(s)
			return out, b.account(name, int64(len(out)))
		}
	case func(...any) string:
		return func(args ...any) (string, error) {
			if err := b.ahead(name, argSize(args)); err != nil {
				return "", err
			}
			out := f(args...)
			return out, b.account(name, int64(len(out)))
		}
	case func(any) string:
		return func(v any) (string, error) {
			if err := b.ahead(name, argSize([]any{v})); err != nil {
				return "", err
			}
			out := f(v)
			return out, b.account(name, int64(len(out)))
		}
	}
	return b.wrapReflect(name, reflect.ValueOf(fn))
}

// wrapReflect is wrap for any function.
func (b *budget) wrapReflect(name string, fn reflect.Value) any {
	t := fn.Type()
	in := make([]reflect.Type, t.NumIn())
	for i := range in {
		in[i] = t.In(i)
	}
	out := []reflect.Type{t.Out(0), errorType}
	hasErr := t.NumOut() == 2
	wt := reflect.FuncOf(in, out, t.IsVariadic())
	zero := reflect.Zero(t.Out(0))
	return reflect.MakeFunc(wt, func(args []reflect.Value) []reflect.Value {
		fail := func(err error) []reflect.Value { return []reflect.Value{zero, reflect.ValueOf(&err).Elem()} }
		n := int64(0)
		for _, a := range args {
			n += valueSize(a)
		}
		if err := b.ahead(name, n); err != nil {
			return fail(err)
		}
		var res []reflect.Value
		if t.IsVariadic() {
			res = fn.CallSlice(args)
		} else {
			res = fn.Call(args)
		}
		if hasErr && !res[1].IsNil() {
			return []reflect.Value{res[0], res[1]}
		}
		if err := b.account(name, valueSize(res[0])); err != nil {
			return fail(err)
		}
		return []reflect.Value{res[0], reflect.Zero(errorType)}
	}).Interface()
}

// argSize is the bytes of the strings among args.
func argSize(args []any) int64 {
	n := int64(0)
	for _, a := range args {
		switch x := a.(type) {
		case string:
			n += int64(len(x))
		case []byte:
			n += int64(len(x))
		}
	}
	return n
}

// valueSize is a lower bound of the memory v holds: a string's bytes, 16
// bytes an element of a list or a map (not what the elements hold).
func valueSize(v reflect.Value) int64 {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return 0
		}
		return valueSize(v.Elem())
	case reflect.String:
		return int64(v.Len())
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return int64(v.Len())
		}
		n := int64(16 * v.Len())
		if k := v.Type().Elem().Kind(); k == reflect.String || k == reflect.Interface {
			for i := range min(v.Len(), 4096) { // the strings of a short list
				e := v.Index(i)
				if e.Kind() == reflect.Interface {
					e = e.Elem()
				}
				if e.Kind() == reflect.String {
					n += int64(e.Len())
				}
			}
		}
		return n
	case reflect.Map:
		return int64(32 * v.Len())
	}
	return 0
}
