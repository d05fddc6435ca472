package live

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/rest"
)

// TestListRawFollowsAServerThatPages: a consistent list (no resource
// version) in pages, followed by their continue tokens, every object handed
// over once, decoded as it streams in. The real API server's answer is
// TestRead's (live_test.go).
func TestListRawFollowsAServerThatPages(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e"}
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		queries = append(queries, r.URL.RawQuery)
		limit, start := 2, 0
		fmt.Sscan(q.Get("limit"), &limit)
		fmt.Sscan(q.Get("continue"), &start)
		end := min(start+limit, len(names))
		var items []string
		for _, n := range names[start:end] {
			items = append(items, fmt.Sprintf(`{"metadata":{"name":%q},"spec":{"n":1},"status":{"sync":{"status":"Synced"}}}`, n))
		}
		cont := ""
		if end < len(names) {
			cont = fmt.Sprint(end)
		}
		// The list's metadata after its items, and a field strata does not read.
		fmt.Fprintf(w, `{"kind":"ApplicationList","items":[%s],"metadata":{"resourceVersion":"42","continue":%q},"extra":{"x":[1,2]}}`, strings.Join(items, ","), cont)
	}))
	defer srv.Close()
	c, err := ClientFor(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	rv, err := c.listRaw(context.Background(), ApplicationGVR, "argocd", Options{PageSize: 2}, func(v jsontext.Value) error {
		a, err := decodeApp(v, true)
		got = append(got, fmt.Sprintf("%s %s %v", a.Name, a.Sync, a.Spec))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a Synced map[n:1]", "b Synced map[n:1]", "c Synced map[n:1]", "d Synced map[n:1]", "e Synced map[n:1]"}
	if diff := cmp.Diff(want, got); diff != "" || rv != "42" {
		t.Errorf("resource version %s; objects (-want +got):\n%s", rv, diff)
	}
	wantQ := []string{"limit=2", "continue=2&limit=2", "continue=4&limit=2"}
	for i, q := range queries {
		v, _ := url.ParseQuery(q)
		queries[i] = v.Encode()
	}
	if diff := cmp.Diff(wantQ, queries); diff != "" {
		t.Errorf("queries (-want +got):\n%s", diff)
	}
}

// TestDecodeListStream: what a list may hold around its items.
func TestDecodeListStream(t *testing.T) {
	for _, tc := range []struct {
		name, list string
		want       []string
		rv, err    string
	}{
		{name: "no items", list: `{"metadata":{"resourceVersion":"7"},"items":[]}`, rv: "7"},
		{name: "items null", list: `{"items":null,"metadata":{"resourceVersion":"7"}}`, rv: "7"},
		{name: "items", list: `{"apiVersion":"v1","items":[{"a":1},{"b":[2]}],"metadata":{"resourceVersion":"8","continue":""}}`, want: []string{`{"a":1}`, `{"b":[2]}`}, rv: "8"},
		{name: "not a list", list: `[1]`, err: "a list is an object"},
		{name: "cut short", list: `{"items":[{"a":1},`, want: []string{`{"a":1}`}, err: "EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var meta listMeta
			var got []string
			err := decodeListStream(jsontext.NewDecoder(strings.NewReader(tc.list)), &meta, func(v jsontext.Value) error {
				got = append(got, string(v))
				return nil
			})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" || (tc.err == "" && meta.ResourceVersion != tc.rv) {
				t.Errorf("resource version %q; items (-want +got):\n%s", meta.ResourceVersion, diff)
			}
		})
	}
}
