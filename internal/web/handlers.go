package web

import (
	"bytes"
	"embed"
	"encoding/json"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/strata-fleet/strata/internal/diff"
	"github.com/strata-fleet/strata/internal/status"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// pages are parsed once a server is made (New), not by every command's
// start-up (a millisecond).
var pages = sync.OnceValue(func() *template.Template {
	return template.Must(status.Templates().Funcs(funcs).ParseFS(templateFiles, "templates/*.html"))
})

var funcs = template.FuncMap{
	"targetURL": targetURL,
	"patchURL":  patchURL,
	"diffClass": diff.LineKind,
	"lines":     func(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") },
	"add":       func(a, b int) int { return a + b },
	"mul":       func(a, b int) int { return a * b },
}

// links are the web UI's addresses for status's templates.
type links struct{}

func (links) TargetURL(name string) string                { return targetURL(name) }
func (links) PatchURL(ct, component, patch string) string { return patchURL(ct, component, patch) }

func targetURL(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return "/target/" + strings.Join(parts, "/")
}

func patchURL(ct, component, patch string) string {
	return "/patch/" + url.PathEscape(ct) + "/" + url.PathEscape(component) + "/" + url.PathEscape(patch)
}

// Handler returns the UI's HTTP handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.matrix)
	mux.HandleFunc("GET /target/{name...}", s.target)
	mux.HandleFunc("GET /patch/{ct}/{component}/{patch}", s.patch)
	mux.HandleFunc("GET /diff", s.diffPage)
	mux.HandleFunc("GET /api/status", s.apiStatus)
	mux.HandleFunc("GET /api/generation", s.apiGeneration)
	static, _ := fs.Sub(staticFiles, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	return s.guard(mux)
}

// guard serves only GET and HEAD, sets restrictive headers, and refuses
// requests for host names that are neither loopback nor allowed.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "strata serve is read-only", http.StatusMethodNotAllowed)
			return
		}
		if !s.allowedHost(r.Host) {
			http.Error(w, "strata serve answers to localhost, loopback addresses and the hosts given with --allowed-host only", http.StatusForbidden)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r)
	})
}

// allowedHost reports whether a request's Host header names a loopback
// host or one of Options.AllowedHosts.
func (s *Server) allowedHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return true
	}
	for _, a := range s.opts.AllowedHosts {
		if host != "" && strings.EqualFold(host, strings.Trim(a, "[]")) {
			return true
		}
	}
	return false
}

// page is what every page template gets.
type page struct {
	Title      string
	Nav        string
	Generation int
	Err        error
	Base       string
	Data       any
	View       *status.View
	// LiveErr says why the live state could not be read.
	LiveErr error
}

func (s *Server) render(w http.ResponseWriter, code int, name string, p *page) {
	snap := s.current()
	p.Generation = snap.gen
	if p.Base == "" {
		p.Base = s.opts.Base
	}
	var b bytes.Buffer
	if err := pages().ExecuteTemplate(&b, name, p); err != nil {
		s.opts.Logger.Error("rendering a page", "page", name, "err", err)
		http.Error(w, "rendering the page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(b.Bytes())
}

// failed shows the load error, when the fleet does not load.
func (s *Server) failed(w http.ResponseWriter, snap *snapshot, nav string) bool {
	if snap.err == nil {
		return false
	}
	s.render(w, http.StatusOK, "error.html", &page{Title: "The fleet does not load", Nav: nav, Err: snap.err})
	return true
}

func (s *Server) notFound(w http.ResponseWriter, msg string) {
	s.render(w, http.StatusNotFound, "error.html", &page{Title: "Not found", Err: errString(msg)})
}

type errString string

func (e errString) Error() string { return string(e) }

func (s *Server) apiStatus(w http.ResponseWriter, r *http.Request) {
	snap := s.current()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if snap.err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		_ = enc.Encode(map[string]string{"error": snap.err.Error()})
		return
	}
	st, _ := s.statusOf(snap)
	_ = enc.Encode(s.withRollouts(r.Context(), snap, st))
}

func (s *Server) apiGeneration(w http.ResponseWriter, r *http.Request) {
	s.Refresh()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(map[string]int{"generation": s.Generation()})
}

func (s *Server) diffPage(w http.ResponseWriter, r *http.Request) {
	snap := s.current()
	if s.failed(w, snap, "diff") {
		return
	}
	base := r.URL.Query().Get("base")
	if base == "" {
		base = s.opts.Base
	}
	target := r.URL.Query().Get("target")
	res, err := s.diff(snap, base, target)
	s.render(w, http.StatusOK, "diff.html", &page{Title: "Diff against " + base, Nav: "diff", Base: base, Err: err,
		Data: diffPage{Base: base, Target: target, Result: res}})
}
