package writer

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// The rollouts of one process fetch at once (RunAll): each must read the
// commit its own fetch brought, never a FETCH_HEAD another fetch is
// rewriting, nor fail on the remote-tracking branch's lock.
func TestConcurrentFetches(t *testing.T) {
	clone := t.TempDir()
	testgit.Remote(t, clone)
	tip := testgit.Run(t, clone, "rev-parse", "HEAD")

	r := &Repo{Git: git.Repo{Git: git.Exec{Dir: clone}}, Dir: clone, Remote: "origin", Branch: "main"}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 8 {
				got, err := r.Fetch(context.Background())
				if err != nil {
					errs <- err.Error()
					return
				}
				if got != tip {
					errs <- "fetched " + got + ", want " + tip
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// Rollouts that ask for the branch while a fetch runs share the next
// fetch, which began after they asked, not the running one; a fetch that
// failed is not shared.
func TestFetchesShared(t *testing.T) {
	for _, fail := range []bool{false, true} {
		f := &fetcher{}
		var fetched atomic.Int32
		running, release := make(chan struct{}), make(chan struct{})
		go f.fetchBranch("origin", "main", func() (string, error) {
			fetched.Add(1)
			close(running)
			<-release
			return "before", nil
		})
		<-running
		const n = 8
		var asked sync.WaitGroup
		asked.Add(n)
		f.asked = asked.Done
		tips := make(chan string, n)
		for range n {
			go func() {
				tip, err := f.fetchBranch("origin", "main", func() (string, error) {
					if fetched.Add(1); fail {
						return "", errors.New("the remote hung up")
					}
					return "after", nil
				})
				if err != nil {
					tip = err.Error()
				}
				tips <- tip
			}()
		}
		asked.Wait()
		close(release)
		want, fetches := "after", int32(2)
		if fail {
			want, fetches = "the remote hung up", 1+n
		}
		for range n {
			if tip := <-tips; tip != want {
				t.Errorf("fail %v: got %q, want %q", fail, tip, want)
			}
		}
		if got := fetched.Load(); got != fetches {
			t.Errorf("fail %v: %d fetches for %d asked while one ran, want %d", fail, got, n, fetches)
		}
	}
}
