package kube

import (
	"context"
	"testing"
)

func TestNormalURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://localhost:18070", "https://localhost:18070"},
		{"https://LocalHost:18070/", "https://localhost:18070"},
		{"HTTPS://api.example.com.:443", "https://api.example.com:443"},
		{"https://api.example.com", "https://api.example.com:443"},
		{"http://api.example.com", "http://api.example.com:80"},
		{"api.example.com:6443", "https://api.example.com:6443"},
		{"https://rancher.example.com/k8s/clusters/c-1/", "https://rancher.example.com:443/k8s/clusters/c-1"},
		{"https://rancher.example.com//k8s/./clusters/c-1", "https://rancher.example.com:443/k8s/clusters/c-1"},
		{"https://[::1]:6443", "https://[::1]:6443"},
		{"https://user@api.example.com?x=1#f", "https://api.example.com:443"},
	} {
		got, err := NormalURL(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("NormalURL(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestSameServer(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"https://LocalHost:18070", "https://localhost:18070", true},
		{"https://localhost:18070/", "https://localhost.:18070", true},
		{"https://api.example.com", "https://api.example.com:443", true},
		{"https://localhost:18070", "https://127.0.0.1:18070", true},
		{"https://localhost:18070", "https://127.0.0.1:18071", false},
		{"https://127.0.0.1:18070", "http://127.0.0.1:18070", false},
		{"https://127.0.0.1/k8s/clusters/a", "https://127.0.0.1/k8s/clusters/b", false},
		{"https://127.0.0.1:6443", "https://127.0.0.2:6443", false},
	} {
		if got, why := SameServer(context.Background(), tc.a, tc.b); got != tc.want {
			t.Errorf("SameServer(%q, %q) = %v (%s), want %v", tc.a, tc.b, got, why, tc.want)
		}
	}
}
