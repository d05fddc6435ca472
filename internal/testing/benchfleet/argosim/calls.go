package argosim

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// Calls tallies the API requests a benchmark sees strata make, by
// Kubernetes verb (Verb), for the delivery benchmarks against argosim and
// against real Argo CD (package e2e): both count the same way.
type Calls struct {
	mu sync.Mutex
	n  map[string]int
}

// Count adds req to the tally.
func (c *Calls) Count(req *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[Verb(req)]++
}

// Reset empties the tally.
func (c *Calls) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n = nil
}

// String is the tally, every verb named: "list 1, watch 1, get 0, ...".
func (c *Calls) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var parts []string
	for _, v := range []string{"list", "watch", "get", "patch", "update", "create", "other"} {
		parts = append(parts, fmt.Sprintf("%s %d", v, c.n[v]))
	}
	return strings.Join(parts, ", ")
}

// Verb is the Kubernetes verb of req: a GET of a collection of
// Applications or ApplicationSets is a list, or a watch with ?watch=true.
func Verb(req *http.Request) string {
	switch req.Method {
	case http.MethodGet:
		if w := req.URL.Query().Get("watch"); w == "true" || w == "1" {
			return "watch"
		}
		if strings.HasSuffix(req.URL.Path, "/applications") || strings.HasSuffix(req.URL.Path, "/applicationsets") {
			return "list"
		}
		return "get"
	case http.MethodPatch:
		return "patch"
	case http.MethodPut:
		return "update"
	case http.MethodPost:
		return "create"
	}
	return "other"
}
