package kube

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/strata-fleet/strata/internal/testing/testenv"
	authenticationv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// A typed clientset's request for each status code: the verb decides
// between Conflict and AlreadyExists.
var leaseCalls = map[int]func(context.Context, kubernetes.Interface) error{
	http.StatusForbidden:           getLease,
	http.StatusNotFound:            getLease,
	http.StatusInternalServerError: getLease,
	http.StatusConflict: func(ctx context.Context, c kubernetes.Interface) error {
		_, err := c.CoordinationV1().Leases("kube-system").Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "strata"}}, metav1.CreateOptions{})
		return err
	},
}

func getLease(ctx context.Context, c kubernetes.Interface) error {
	_, err := c.CoordinationV1().Leases("kube-system").Get(ctx, "strata", metav1.GetOptions{})
	return err
}

var leaseErrors = map[int]struct {
	reason metav1.StatusReason
	is     func(error) bool
}{
	http.StatusForbidden:           {metav1.StatusReasonForbidden, apierrors.IsForbidden},
	http.StatusNotFound:            {metav1.StatusReasonNotFound, apierrors.IsNotFound},
	http.StatusInternalServerError: {metav1.StatusReasonInternalError, apierrors.IsInternalError},
	http.StatusConflict:            {metav1.StatusReasonAlreadyExists, apierrors.IsAlreadyExists},
}

// TestTypedClientsReadTheServersWords: a typed clientset, asking for
// protobuf as client-go's typed clients do or for JSON, built through
// Secure, makes of every error response an error that carries the
// server's message and keeps its kind: a Status in either encoding as the
// server wrote it, a page or text as the server's words.
func TestTypedClientsReadTheServersWords(t *testing.T) {
	const said = `leases.coordination.k8s.io "strata" is forbidden: User "reader" cannot get resource "leases"`
	bodies := []struct {
		name        string
		contentType string
		body        func(code int) []byte
		want        func(code int) string
	}{
		{"a JSON Status", "application/json", func(code int) []byte { return jsonBody(t, statusOf(code, said)) },
			func(int) string { return said }},
		{"a protobuf Status", "application/vnd.kubernetes.protobuf", func(code int) []byte { return protobufBody(t, statusOf(code, said)) },
			func(int) string { return said }},
		{"plain text", "text/plain; charset=utf-8", func(int) []byte { return []byte("etcd is unreachable\n") },
			func(code int) string {
				return fmt.Sprintf("the server answered %d %s: etcd is unreachable", code, http.StatusText(code))
			}},
		{"an HTML page", "text/html", func(int) []byte { return []byte("<html><body><h1>Denied</h1><p>by the proxy</p></body></html>") },
			func(code int) string {
				return fmt.Sprintf("the server answered %d %s: Denied by the proxy", code, http.StatusText(code))
			}},
		{"an empty body", "", func(int) []byte { return nil },
			func(code int) string {
				return fmt.Sprintf("the server answered %d %s with an empty body", code, http.StatusText(code))
			}},
	}
	for _, code := range []int{403, 404, 500, 409} {
		for _, b := range bodies {
			api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if b.contentType != "" {
					w.Header().Set("Content-Type", b.contentType)
				}
				w.WriteHeader(code)
				_, _ = w.Write(b.body(code))
			}))
			for _, client := range []string{"application/vnd.kubernetes.protobuf", "application/json"} {
				t.Run(fmt.Sprintf("%d %s to %s", code, b.name, client), func(t *testing.T) {
					cs, err := kubernetes.NewForConfig(Secure(&rest.Config{Host: api.URL, ContentConfig: rest.ContentConfig{ContentType: client}}))
					if err != nil {
						t.Fatal(err)
					}
					err = leaseCalls[code](testContext(t), cs)
					if want := b.want(code); err == nil || err.Error() != want {
						t.Errorf("got %v, want %q", err, want)
					}
					if !leaseErrors[code].is(err) {
						t.Errorf("%v: the error lost its kind (%s)", err, apierrors.ReasonForError(err))
					}
				})
			}
			api.Close()
		}
	}
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func statusOf(code int, msg string) *metav1.Status {
	return &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
		Message: msg, Reason: leaseErrors[code].reason, Code: int32(code)}
}

func jsonBody(t *testing.T, st *metav1.Status) []byte {
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// protobufBody encodes st as kube-apiserver does for a protobuf client.
func protobufBody(t *testing.T, st *metav1.Status) []byte {
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(st, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gzipped(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestForbiddenByARealAPIServer: kube-apiserver's 403 to a typed protobuf
// client (as leader election's Lease client is) with a token that RBAC
// grants nothing reads as the apiserver's own sentence.
func TestForbiddenByARealAPIServer(t *testing.T) {
	srv := testenv.StartAPIServer(t)
	ctx := testContext(t)
	admin, err := kubernetes.NewForConfig(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: "default"}}
	if _, err := admin.CoreV1().ServiceAccounts("default").Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tok, err := admin.CoreV1().ServiceAccounts("default").CreateToken(ctx, "reader", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &rest.Config{Host: srv.URL, BearerToken: tok.Status.Token, TLSClientConfig: rest.TLSClientConfig{CAData: srv.CAData},
		ContentConfig: rest.ContentConfig{ContentType: "application/vnd.kubernetes.protobuf"}}
	reader, err := kubernetes.NewForConfig(Secure(cfg))
	if err != nil {
		t.Fatal(err)
	}
	_, err = reader.CoordinationV1().Leases("default").Get(ctx, "strata", metav1.GetOptions{})
	want := `leases.coordination.k8s.io "strata" is forbidden: User "system:serviceaccount:default:reader" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "default"`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
	if !apierrors.IsForbidden(err) {
		t.Errorf("%v: not Forbidden", err)
	}
}

// TestErrorBodiesInAnyEncoding: what Secure's rewriting must not assume
// of an error body: that its Content-Type is bare, names its encoding at
// all, that it is not zipped, that its text is UTF-8, that it fits what
// is read of it.
func TestErrorBodiesInAnyEncoding(t *testing.T) {
	const said = `leases.coordination.k8s.io "strata" is forbidden: User "reader" cannot get resource "leases"`
	long := strings.Repeat("a denied request, ", 5000) // 90 KB, past the 64 KiB read
	latin1 := []byte("Zugriff f\xfcr \xbbreader\xab verweigert")
	for _, tc := range []struct {
		name        string
		client      string // the clientset's content type
		contentType string
		encoding    string
		body        []byte
		want        string
	}{
		{name: "a JSON Status with a charset", client: protobufType, contentType: "application/json; charset=utf-8",
			body: jsonBody(t, statusOf(403, said)), want: said},
		{name: "a protobuf Status labelled as text", client: protobufType, contentType: "text/plain",
			body: protobufBody(t, statusOf(403, said)), want: said},
		{name: "a JSON Status with no Content-Type to a protobuf client", client: protobufType,
			body: jsonBody(t, statusOf(403, said)), want: said},
		{name: "a gzipped protobuf Status", client: protobufType, contentType: protobufType, encoding: "gzip",
			body: gzipped(t, protobufBody(t, statusOf(403, said))), want: said},
		{name: "a gzipped JSON Status", client: jsonType, contentType: jsonType, encoding: "gzip",
			body: gzipped(t, jsonBody(t, statusOf(403, said))), want: said},
		{name: "gzipped text", client: protobufType, contentType: "text/plain", encoding: "gzip",
			body: gzipped(t, []byte("denied by the proxy")), want: "the server answered 403 Forbidden: denied by the proxy"},
		{name: "a body in an encoding nothing here reads", client: protobufType, contentType: "text/plain", encoding: "br",
			body: []byte{0x1b, 0x10, 0x00, 0xf8, 0xa5}, want: "the server answered 403 Forbidden with a body in br encoding"},
		{name: "a body in zstd encoding", client: jsonType, contentType: jsonType, encoding: "zstd",
			body: []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00}, want: "the server answered 403 Forbidden with a body in zstd encoding"},
		{name: "a JSON Status after a byte order mark", client: jsonType, contentType: jsonType,
			body: append([]byte("\xef\xbb\xbf"), jsonBody(t, statusOf(403, said))...), want: said},
		{name: "a JSON Status after a byte order mark to a protobuf client", client: protobufType, contentType: jsonType,
			body: append([]byte("\xef\xbb\xbf"), jsonBody(t, statusOf(403, said))...), want: said},
		{name: "JSON of its own after a byte order mark", client: protobufType, contentType: jsonType,
			body: []byte("\xef\xbb\xbf{\"error\": \"denied by the proxy\"}"), want: "the server answered 403 Forbidden: denied by the proxy"},
		{name: "text in ISO-8859-1", client: protobufType, contentType: "text/plain; charset=ISO-8859-1",
			body: latin1, want: "the server answered 403 Forbidden: Zugriff für »reader« verweigert"},
		{name: "a Status longer than what is read of it", client: jsonType, contentType: jsonType,
			body: jsonBody(t, statusOf(403, long)), want: long},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Over TLS: client-go then builds its own transport, which
			// honours DisableCompression (plain HTTP gets Go's default).
			api := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.contentType != "" {
					w.Header().Set("Content-Type", tc.contentType)
				}
				if tc.encoding != "" {
					w.Header().Set("Content-Encoding", tc.encoding) // asked for or not
				}
				w.WriteHeader(http.StatusForbidden)
				_, _ = w.Write(tc.body)
			}))
			defer api.Close()
			ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: api.Certificate().Raw})
			cfg := &rest.Config{Host: api.URL, ContentConfig: rest.ContentConfig{ContentType: tc.client},
				TLSClientConfig: rest.TLSClientConfig{CAData: ca}, DisableCompression: true}
			cs, err := kubernetes.NewForConfig(Secure(cfg))
			if err != nil {
				t.Fatal(err)
			}
			err = getLease(testContext(t), cs)
			if err == nil || err.Error() != tc.want {
				t.Errorf("got %.300v, want %.300q", err, tc.want)
			}
			if !apierrors.IsForbidden(err) {
				t.Errorf("%.300v: not Forbidden (%s)", err, apierrors.ReasonForError(err))
			}
		})
	}
}

// TestWatchStreamsPassThrough: a watch's 200 stream reaches client-go as
// the server sends it, event by event; Secure reads no successful body.
func TestWatchStreamsPassThrough(t *testing.T) {
	done := make(chan struct{})
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", jsonType)
		w.Header().Set("Transfer-Encoding", "chunked")
		_, _ = w.Write([]byte(`{"type":"ADDED","object":{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"strata","namespace":"kube-system","resourceVersion":"7"}}}` + "\n"))
		w.(http.Flusher).Flush()
		select { // the stream stays open: one event is all there is so far
		case <-done:
		case <-r.Context().Done():
		}
	}))
	defer api.Close()
	defer close(done)
	cs, err := kubernetes.NewForConfig(Secure(&rest.Config{Host: api.URL, ContentConfig: rest.ContentConfig{ContentType: jsonType}}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t)
	w, err := cs.CoordinationV1().Leases("kube-system").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	select {
	case ev := <-w.ResultChan():
		if l, ok := ev.Object.(*coordinationv1.Lease); !ok || l.Name != "strata" {
			t.Errorf("first event: %v %#v", ev.Type, ev.Object)
		}
	case <-ctx.Done():
		t.Fatal("no event from an open watch stream")
	}
}
