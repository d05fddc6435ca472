package kube

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/net/html/charset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// maxErrorBody is how much of an error response is read to find what the
// server said.
const maxErrorBody = 64 << 10

// The media types of a Kubernetes Status: JSON, and protobuf, which the
// server sends to typed clientsets (client-go asks for it). Errors are
// never sent as YAML.
const (
	jsonType     = "application/json"
	protobufType = "application/vnd.kubernetes.protobuf"
)

// protobufMagic opens every protobuf object of the Kubernetes API.
var protobufMagic = []byte("k8s\x00")

// utf8BOM is the byte order mark some servers and proxies put before a
// UTF-8 body.
var utf8BOM = []byte("\xef\xbb\xbf")

// statusBody returns resp with a body that client-go decodes into an error
// that says what the server said. A Kubernetes Status, in JSON or protobuf,
// goes on whole and as it is, but unzipped (client-go does not undo a
// Content-Encoding) and labelled with its media type. Anything else (a
// proxy's page, plain text in any charset, JSON of its own, nothing)
// becomes a JSON Status whose message is the start of the body's text, or
// the HTTP status when it has none, and whose reason is the one client-go
// gives the status code, so that IsForbidden, IsAlreadyExists... hold.
func statusBody(resp *http.Response, method string) *http.Response {
	raw := resp.Body
	resp.Header = resp.Header.Clone()
	body, encoding := decoded(resp)
	var head []byte
	var err error
	if body != nil {
		head, err = io.ReadAll(io.LimitReader(body, maxErrorBody))
		// A byte order mark would hide a JSON Status, from statusType and
		// from client-go's decoder alike.
		head = bytes.TrimPrefix(head, utf8BOM)
	}
	if mediaType := statusType(head); mediaType != "" && err == nil {
		if declared, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); declared != mediaType {
			resp.Header.Set("Content-Type", mediaType)
		}
		if encoding != "" {
			resp.Header.Del("Content-Encoding")
			resp.ContentLength = -1
		}
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(head), body), raw}
		return resp
	}
	_ = raw.Close()

	msg := fmt.Sprintf("the server answered %s", resp.Status)
	switch text := bodyText(head, resp.Header.Get("Content-Type")); {
	case body == nil:
		msg += fmt.Sprintf(" with a body in %s encoding", encoding)
	case text != "":
		msg += ": " + text
	default:
		msg += " with an empty body"
	}
	retryAfter, _ := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After")))
	status := apierrors.NewGenericServerResponse(resp.StatusCode, method, schema.GroupResource{}, "", "", retryAfter, false).ErrStatus
	status.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	status.Message = msg
	out, _ := json.Marshal(status)
	resp.Body = io.NopCloser(bytes.NewReader(out))
	resp.ContentLength = int64(len(out))
	resp.Header.Set("Content-Type", jsonType)
	resp.Header.Del("Content-Encoding")
	return resp
}

// decoded is resp's body with its Content-Encoding undone, and the
// encoding undone. Go's transport unzips only what it asked to be zipped;
// a server or proxy may zip regardless. The body is nil for an encoding
// other than gzip, which nothing here can read.
func decoded(resp *http.Response) (io.Reader, string) {
	encoding := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding")))
	switch encoding {
	case "", "identity":
		return resp.Body, ""
	case "gzip", "x-gzip":
		br := bufio.NewReader(resp.Body)
		if magic, _ := br.Peek(2); !bytes.Equal(magic, []byte{0x1f, 0x8b}) {
			return br, encoding // labelled gzip, sent plain
		}
		zr, err := gzip.NewReader(br)
		if err != nil {
			return br, encoding
		}
		return zr, encoding
	}
	return nil, encoding
}

// statusType is the media type of head when it is the start of a
// Kubernetes Status, and "" when it is not.
func statusType(head []byte) string {
	switch {
	case jsonStatus(head):
		return jsonType
	case protobufStatus(head):
		return protobufType
	}
	return ""
}

// jsonStatus tells whether head opens a JSON object whose kind is Status.
// It reads only as far as the kind, so a Status longer than what was read
// is still one.
func jsonStatus(head []byte) bool {
	d := json.NewDecoder(bytes.NewReader(head))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for d.More() {
		key, err := d.Token()
		if err != nil {
			return false
		}
		if key == "kind" {
			v, err := d.Token()
			return err == nil && v == "Status"
		}
		var skip json.RawMessage
		if d.Decode(&skip) != nil {
			return false
		}
	}
	return false
}

// protobufStatus tells whether head opens a protobuf Status: the magic
// prefix, then a runtime.Unknown whose first field, its type meta, says
// kind Status.
func protobufStatus(head []byte) bool {
	b, ok := bytes.CutPrefix(head, protobufMagic)
	if !ok || len(b) < 2 || b[0] != 0x0a { // field 1, length-delimited
		return false
	}
	n, w := binary.Uvarint(b[1:])
	if w <= 0 || n > uint64(len(b)-1-w) {
		return false
	}
	var tm runtime.TypeMeta
	if tm.Unmarshal(b[1+w:1+w+int(n)]) != nil {
		return false
	}
	return tm.Kind == "Status"
}

// bodyText is the start of an error body as one printable line: a JSON
// object's message or error field when it has one, else the text in the
// charset its Content-Type names (or HTML declares), with markup and
// control characters dropped.
func bodyText(body []byte, contentType string) string {
	var obj map[string]any
	if json.Unmarshal(body, &obj) == nil {
		for _, k := range []string{"message", "error", "msg"} {
			if s, ok := obj[k].(string); ok && s != "" {
				return oneLine(s)
			}
		}
	}
	text := string(body)
	if r, err := charset.NewReader(bytes.NewReader(body), contentType); err == nil {
		if b, err := io.ReadAll(r); err == nil {
			text = string(b)
		}
	}
	return oneLine(stripTags(strings.ToValidUTF8(text, "")))
}

func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>' && in:
			in = false
			b.WriteByte(' ')
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// oneLine folds s into one line of printable text of at most 300 runes.
func oneLine(s string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || !unicode.IsPrint(r) || r == unicode.ReplacementChar
	}), " ")
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "..."
	}
	return s
}
