package cli

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
)

// emptyLists returns v with every nil slice and map that its JSON holds
// made empty, so that a report prints an empty list as [] (and an empty
// map as {}), never null, whichever package built it. The report is copied
// first when it is not a pointer; what pointers reach is changed in place,
// which only replaces a nil list with an empty one. Types that marshal
// themselves (time.Time, unstructured objects) are left as they are.
func emptyLists(v any) any {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return v
	}
	if rv.Kind() != reflect.Pointer {
		c := reflect.New(rv.Type()).Elem()
		c.Set(rv)
		rv = c
		v = nil // the copy is returned
	}
	fillEmpty(rv, map[uintptr]bool{})
	if v == nil {
		return rv.Interface()
	}
	return v
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// fillEmpty makes the nil slices and maps under v empty; seen holds the
// pointers already walked (a report may share or loop through pointers).
func fillEmpty(v reflect.Value, seen map[uintptr]bool) {
	t := v.Type()
	if t.Implements(jsonMarshaler) || t.Implements(textMarshaler) ||
		reflect.PointerTo(t).Implements(jsonMarshaler) && v.CanAddr() {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		fillEmpty(v.Elem(), seen)
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		// The value an interface holds cannot be set: walk a copy and put
		// it back.
		e := v.Elem()
		c := reflect.New(e.Type()).Elem()
		c.Set(e)
		fillEmpty(c, seen)
		if v.CanSet() {
			v.Set(c)
		}
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			tag := f.Tag.Get("json")
			if tag == "-" || strings.Contains(tag, ",string") {
				continue
			}
			fillEmpty(v.Field(i), seen)
		}
	case reflect.Slice:
		if v.IsNil() {
			if v.CanSet() && t.Elem().Kind() != reflect.Uint8 { // []byte is base64 text
				v.Set(reflect.MakeSlice(t, 0, 0))
			}
			return
		}
		for i := range v.Len() {
			fillEmpty(v.Index(i), seen)
		}
	case reflect.Array:
		for i := range v.Len() {
			fillEmpty(v.Index(i), seen)
		}
	case reflect.Map:
		if v.IsNil() {
			if v.CanSet() {
				v.Set(reflect.MakeMap(t))
			}
			return
		}
		// Map values cannot be set in place: walk a copy of each.
		iter := v.MapRange()
		for iter.Next() {
			e := iter.Value()
			c := reflect.New(e.Type()).Elem()
			c.Set(e)
			fillEmpty(c, seen)
			v.SetMapIndex(iter.Key(), c)
		}
	}
}
