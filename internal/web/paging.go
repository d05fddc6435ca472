package web

import (
	"net/http"
	"strconv"

	"github.com/strata-fleet/strata/internal/status"
)

// pageSize is how many targets a page of the matrix shows. A fleet of
// 10,000 targets and 20 components would put 200,000 cells in one page,
// which takes a browser seconds to lay out and keeps it sluggish after;
// a page of 200 targets is 4,000 cells.
const pageSize = 200

// pager is where a page of the matrix stands among its pages.
type pager struct {
	Page, Pages int // 1-based
	// From and To are the 1-based positions of the page's first and last
	// targets, of Total.
	From, To, Total int
	Prev, Next      int // 0: none
}

// pageOf returns the page of a matrix of total targets that the request
// asks for (?page=N, the first by default), and false for a page that does
// not exist.
func pageOf(r *http.Request, total int) (pager, bool) {
	p := pager{Page: 1, Pages: max(1, (total+pageSize-1)/pageSize), Total: total}
	if q := r.URL.Query().Get("page"); q != "" {
		n, err := strconv.Atoi(q)
		if err != nil || n < 1 || n > p.Pages {
			return p, false
		}
		p.Page = n
	}
	p.From = min(total, (p.Page-1)*pageSize+1)
	p.To = min(total, p.Page*pageSize)
	if p.Page > 1 {
		p.Prev = p.Page - 1
	}
	if p.Page < p.Pages {
		p.Next = p.Page + 1
	}
	return p, true
}

// targets is the number of rows of the matrix (every cluster type has a
// row per target).
func targets(st *status.Status) int {
	n := 0
	for _, ct := range st.ClusterTypes {
		n = max(n, len(ct.Targets))
	}
	return n
}

func (s *Server) matrix(w http.ResponseWriter, r *http.Request) {
	snap := s.current()
	if s.failed(w, snap, "matrix") {
		return
	}
	st, liveErr := s.statusOf(snap)
	st = s.withRollouts(r.Context(), snap, st)
	p, ok := pageOf(r, targets(st))
	if !ok {
		s.notFound(w, "the matrix has no page "+r.URL.Query().Get("page")+": it has pages 1 to "+strconv.Itoa(p.Pages))
		return
	}
	view := status.NewPageView(st, links{}, p.From-1, p.To)
	s.render(w, http.StatusOK, "matrix.html", &page{Title: "Rollout matrix", Nav: "matrix", View: view, LiveErr: liveErr, Data: p})
}
