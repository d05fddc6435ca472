package kube

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode"

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

// statusBody returns resp with a body that client-go decodes into an error
// that says what the server said. A Kubernetes Status, in JSON or protobuf,
// goes on whole and as it is, labelled with its media type. Anything else
// (a proxy's page, plain text, JSON of its own, nothing)
// becomes a JSON Status whose message is the start of the body's text, or
// the HTTP status when it has none, and whose reason is the one client-go
// gives the status code, so that IsForbidden, IsAlreadyExists... hold.
func statusBody(resp *http.Response, method string) *http.Response {
	raw := resp.Body
	resp.Header = resp.Header.Clone()
	body := resp.Body
	head, err := io.ReadAll(io.LimitReader(body, maxErrorBody))
	if mediaType := statusType(head); mediaType != "" && err == nil {
		if declared, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); declared != mediaType {
			resp.Header.Set("Content-Type", mediaType)
		}
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(head), body), raw}
		return resp
	}
	_ = raw.Close()

	msg := fmt.Sprintf("the server answered %s", resp.Status)
	switch text := bodyText(head); {
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
// object's message or error field when it has one, else the text with
// markup and control characters dropped.
func bodyText(body []byte) string {
	var obj map[string]any
	if json.Unmarshal(body, &obj) == nil {
		for _, k := range []string{"message", "error", "msg"} {
			if s, ok := obj[k].(string); ok && s != "" {
				return oneLine(s)
			}
		}
	}
	return oneLine(stripTags(string(body)))
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
		return unicode.IsSpace(r) || !unicode.IsPrint(r)
	}), " ")
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "..."
	}
	return s
}
