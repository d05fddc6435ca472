package memo

import "sync"

// DefaultSize is the size of a Table created with a zero size: enough for
// what every target of a large fleet uses (its environments' and sectors'
// values), few enough that what one target alone uses does not pile up.
const DefaultSize = 1024

// Table maps keys to results, keeping at most 2*size entries. The zero
// Table is ready to use with DefaultSize. It is safe for concurrent use.
type Table[K comparable, V any] struct {
	mu       sync.Mutex
	size     int
	cur, old map[K]V
}

// New returns a Table of the given size (DefaultSize when size < 1).
func New[K comparable, V any](size int) *Table[K, V] {
	return &Table[K, V]{size: size}
}

// Get returns the result stored for k.
func (t *Table[K, V]) Get(k K) (V, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if v, ok := t.cur[k]; ok {
		return v, true
	}
	v, ok := t.old[k]
	if ok {
		delete(t.old, k)
		t.put(k, v)
	}
	return v, ok
}

// Put stores v for k.
func (t *Table[K, V]) Put(k K, v V) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.put(k, v)
}

func (t *Table[K, V]) put(k K, v V) {
	if t.cur == nil {
		t.cur = map[K]V{}
	}
	size := t.size
	if size < 1 {
		size = DefaultSize
	}
	if _, ok := t.cur[k]; !ok && len(t.cur) >= size {
		t.old, t.cur = t.cur, make(map[K]V, size)
	}
	t.cur[k] = v
}

// Len returns the number of entries held.
func (t *Table[K, V]) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.cur) + len(t.old)
}
