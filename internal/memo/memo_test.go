package memo

import (
	"sync"
	"testing"
)

func TestTableKeepsWhatIsUsedAndDropsTheRest(t *testing.T) {
	tab := New[int, string](4)
	tab.Put(0, "shared")
	for i := 1; i <= 100; i++ {
		if v, ok := tab.Get(0); !ok || v != "shared" {
			t.Fatalf("after %d others: Get(0) = %q, %v; want the entry used all along", i-1, v, ok)
		}
		tab.Put(i, "once")
		if n := tab.Len(); n > 8 {
			t.Fatalf("after %d entries: %d held, more than twice the size", i+1, n)
		}
	}
	if _, ok := tab.Get(1); ok {
		t.Errorf("Get(1): an entry unused for many generations is still held")
	}
	if v, ok := tab.Get(100); !ok || v != "once" {
		t.Errorf("Get(100) = %q, %v; want the newest entry", v, ok)
	}
}

func TestTableRefreshesAnOldEntryOnAHit(t *testing.T) {
	tab := New[string, int](2)
	tab.Put("a", 1)
	tab.Put("b", 2)
	tab.Put("c", 3) // a and b are the old generation now
	if v, ok := tab.Get("a"); !ok || v != 1 {
		t.Fatalf(`Get("a") = %d, %v; want 1 from the old generation`, v, ok)
	}
	tab.Put("d", 4) // the generation of c and a is full: b goes
	if _, ok := tab.Get("b"); ok {
		t.Errorf(`Get("b"): held after two generations without a hit`)
	}
	if v, ok := tab.Get("a"); !ok || v != 1 {
		t.Errorf(`Get("a") = %d, %v; want 1, refreshed by its hit`, v, ok)
	}
}

func TestZeroTableUsesTheDefaultSize(t *testing.T) {
	var tab Table[int, int]
	for i := range 3 * DefaultSize {
		tab.Put(i, i)
	}
	if n := tab.Len(); n < DefaultSize || n > 2*DefaultSize {
		t.Errorf("%d entries held; want between %d and %d", n, DefaultSize, 2*DefaultSize)
	}
}

func TestTableIsSafeForConcurrentUse(t *testing.T) {
	tab := New[int, int](16)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				k := (g*1000 + i) % 64
				if v, ok := tab.Get(k); ok && v != k*k {
					t.Errorf("Get(%d) = %d", k, v)
					return
				}
				tab.Put(k, k*k)
			}
		}()
	}
	wg.Wait()
}
