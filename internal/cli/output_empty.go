package cli

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
)

// emptyLists returns a copy of v whose nil slices and maps are empty, so
// that a report prints [] and {}, never null; a copy, as a running command
// may still read the report. Types that marshal themselves are kept.
func emptyLists(v any) any {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return v
	}
	return emptied(rv, map[uintptr]bool{}).Interface()
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// emptied is v with its nil slices and maps made empty, as a new value
// of v's type; seen holds the pointers being walked (a report that loops
// through pointers is left as it is at the loop).
func emptied(v reflect.Value, seen map[uintptr]bool) reflect.Value {
	t := v.Type()
	if t.Implements(jsonMarshaler) || t.Implements(textMarshaler) ||
		reflect.PointerTo(t).Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(textMarshaler) {
		return v
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return v
		}
		seen[v.Pointer()] = true
		defer delete(seen, v.Pointer())
		c := reflect.New(t.Elem())
		c.Elem().Set(emptied(v.Elem(), seen))
		return c
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		c := reflect.New(t).Elem()
		c.Set(emptied(v.Elem(), seen))
		return c
	case reflect.Struct:
		c := reflect.New(t).Elem()
		c.Set(v)
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() || f.Tag.Get("json") == "-" || strings.Contains(f.Tag.Get("json"), ",string") {
				continue
			}
			c.Field(i).Set(emptied(v.Field(i), seen))
		}
		return c
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 { // []byte is base64 text
			return v
		}
		c := reflect.MakeSlice(t, v.Len(), v.Len())
		for i := range v.Len() {
			c.Index(i).Set(emptied(v.Index(i), seen))
		}
		return c
	case reflect.Array:
		c := reflect.New(t).Elem()
		for i := range v.Len() {
			c.Index(i).Set(emptied(v.Index(i), seen))
		}
		return c
	case reflect.Map:
		c := reflect.MakeMapWithSize(t, v.Len())
		iter := v.MapRange()
		for iter.Next() {
			c.SetMapIndex(iter.Key(), emptied(iter.Value(), seen))
		}
		return c
	}
	return v
}
