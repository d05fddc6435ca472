package fleet

import (
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/strata-fleet/strata/internal/values"
)

// NotifyEvents are the rollout events a notification can be sent for, in
// the order they come: a step started (pushed), healthy, failed,
// reverted; the next step at a manual gate; held by a freeze or a
// stopWhen condition (frozen); the patch folded into values.yaml.
var NotifyEvents = []string{"started", "healthy", "failed", "reverted", "gated", "frozen", "folded"}

// DefaultNotifyTimeout bounds one attempt to send a notification.
const DefaultNotifyTimeout = 10 * time.Second

// Notification is one entry of config.yaml's notifications: where the
// rollout runner (rollout --watch) sends the events it names.
type Notification struct {
	// Name names it in metrics and logs (default: its kind and index,
	// "slack-0").
	Name string
	// Kind is "webhook" (the event as JSON) or "slack" (a message for a
	// Slack-compatible incoming webhook).
	Kind string
	// URL is where it is posted; URLFile, instead, an absolute path on
	// the runner's file system whose content is the URL (a mounted
	// Secret: a Slack webhook's URL is a credential, kept out of Git).
	URL, URLFile string
	// Events are the events sent (NotifyEvents; nil: all of them).
	Events []string
	// Timeout bounds each attempt.
	Timeout time.Duration
	Pos     values.Pos
}

// parseNotifications reads config.yaml's notifications: a list.
func parseNotifications(v *values.Value) ([]Notification, error) {
	if v == nil || v.Kind == values.Null {
		return nil, nil
	}
	p := []string{"notifications"}
	if v.Kind != values.List {
		e := values.TypeError(v, p, values.List)
		e.Hint = `notifications: [{name: chat, slack: {urlFile: /etc/strata/notify/slack-url}, events: [failed, reverted]}]`
		return nil, e
	}
	var out []Notification
	names := map[string]bool{}
	for i, it := range v.Items {
		n, err := parseNotification(it, append(p[:1:1], fmt.Sprint(i)), i)
		if err != nil {
			return nil, err
		}
		if names[n.Name] {
			return nil, &values.Error{Pos: it.Pos, Path: append(p[:1:1], fmt.Sprint(i), "name"), Msg: fmt.Sprintf("a second notification named %q", n.Name)}
		}
		names[n.Name] = true
		out = append(out, n)
	}
	return out, nil
}

func parseNotification(v *values.Value, p []string, i int) (Notification, error) {
	n := Notification{Timeout: DefaultNotifyTimeout, Pos: v.Pos}
	if v.Kind != values.Map {
		return n, values.TypeError(v, p, values.Map)
	}
	if err := knownKeys(v, p, "name", "webhook", "slack", "events", "timeout"); err != nil {
		return n, err
	}
	at := func(keys ...string) []string { return append(p[:len(p):len(p)], keys...) }
	wv, sv := v.Get("webhook"), v.Get("slack")
	if (wv == nil) == (sv == nil) {
		return n, &values.Error{Pos: v.Pos, Path: p, Msg: "a notification is one of webhook or slack",
			Hint: `{webhook: {url: https://hooks.example.com/strata}} or {slack: {urlFile: /etc/strata/notify/slack-url}}`}
	}
	target := wv
	n.Kind = "webhook"
	if sv != nil {
		n.Kind, target = "slack", sv
	}
	if err := n.parseTarget(target, at(n.Kind)); err != nil {
		return n, err
	}
	n.Name = fmt.Sprintf("%s-%d", n.Kind, i)
	if nv := v.Get("name"); nv != nil {
		if nv.Kind != values.String || nv.Text == "" || strings.ContainsAny(nv.Text, " \t\n") {
			return n, &values.Error{Pos: nv.Pos, Path: at("name"), Msg: "expected a name without spaces, got " + describe(nv)}
		}
		n.Name = nv.Text
	}
	if ev := v.Get("events"); ev != nil {
		events, err := parseNotifyEvents(ev, at("events"))
		if err != nil {
			return n, err
		}
		n.Events = events
	}
	if tv := v.Get("timeout"); tv != nil {
		d, err := parseDuration(tv, at("timeout"))
		if err != nil {
			return n, err
		}
		if d <= 0 {
			return n, &values.Error{Pos: tv.Pos, Path: at("timeout"), Msg: "timeout must be more than 0"}
		}
		n.Timeout = d
	}
	return n, nil
}

// parseTarget reads webhook: or slack:, {url: ...} or {urlFile: ...}.
func (n *Notification) parseTarget(v *values.Value, p []string) error {
	hint := n.Kind + `: {url: https://hooks.example.com/...} or ` + n.Kind + `: {urlFile: /etc/strata/notify/url}`
	if v.Kind != values.Map {
		e := values.TypeError(v, p, values.Map)
		e.Hint = hint
		return e
	}
	if err := knownKeys(v, p, "url", "urlFile"); err != nil {
		return err
	}
	uv, fv := v.Get("url"), v.Get("urlFile")
	if (uv == nil) == (fv == nil) {
		return &values.Error{Pos: v.Pos, Path: p, Msg: "give one of url or urlFile", Hint: hint}
	}
	if uv != nil {
		u, err := parseURL(v, p)
		if err != nil {
			return err
		}
		n.URL = u
		return nil
	}
	if fv.Kind != values.String || !path.IsAbs(fv.Text) || path.Clean(fv.Text) != fv.Text {
		return &values.Error{Pos: fv.Pos, Path: append(p[:len(p):len(p)], "urlFile"), Msg: "expected an absolute path, got " + describe(fv),
			Hint: "the file on the runner's file system that holds the URL, as a mounted Secret: /etc/strata/notify/slack-url"}
	}
	n.URLFile = fv.Text
	return nil
}

// CheckNotifyURL checks a URL read from a notification's urlFile as
// config.yaml's url: is checked.
func CheckNotifyURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("expected an http or https URL")
	}
	return nil
}

func parseNotifyEvents(v *values.Value, p []string) ([]string, error) {
	hint := "events among " + strings.Join(NotifyEvents, ", ")
	if v.Kind != values.List || len(v.Items) == 0 {
		return nil, &values.Error{Pos: v.Pos, Path: p, Msg: "expected a non-empty list of events, got " + describe(v), Hint: hint}
	}
	var out []string
	for i, it := range v.Items {
		if it.Kind != values.String || !slices.Contains(NotifyEvents, it.Text) {
			e := &values.Error{Pos: it.Pos, Path: append(p[:len(p):len(p)], fmt.Sprint(i)), Msg: "unknown event " + describe(it), Hint: hint}
			return nil, e
		}
		if !slices.Contains(out, it.Text) {
			out = append(out, it.Text)
		}
	}
	return out, nil
}
