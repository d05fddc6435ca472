package fleet_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/strata-fleet/strata/internal/fleet"
)

// notifyConfig sends failures to a chat and every event to an audit
// service.
const notifyConfig = `dimensions: [environments]
sequence:
  environments:
    - name: integration
cluster_types: [workload]
notifications:
  - name: chat
    slack: {urlFile: /etc/strata/notify/slack-url}
    events: [failed, reverted, gated, failed]
  - webhook: {url: https://audit.example.com/strata}
    timeout: 3s
`

func TestNotifications(t *testing.T) {
	f, err := fleet.Load(fleetFS(notifyConfig, nil))
	if err != nil {
		t.Fatal(err)
	}
	want := []fleet.Notification{
		{Name: "chat", Kind: "slack", URLFile: "/etc/strata/notify/slack-url", Events: []string{"failed", "reverted", "gated"},
			Timeout: fleet.DefaultNotifyTimeout},
		{Name: "webhook-1", Kind: "webhook", URL: "https://audit.example.com/strata", Timeout: 3 * time.Second},
	}
	if d := cmp.Diff(want, f.Config.Notifications, cmpopts.IgnoreFields(fleet.Notification{}, "Pos")); d != "" {
		t.Errorf("Notifications (-want +got):\n%s", d)
	}
	if p := f.Config.Notifications[1].Pos; p.Line != 10 {
		t.Errorf("the second notification is at line %d, want 10", p.Line)
	}
}

func TestNotificationErrors(t *testing.T) {
	tests := []struct {
		name, old, new string
		want           []string
	}{
		{"neither kind", "slack: {urlFile: /etc/strata/notify/slack-url}", "timeout: 1s",
			[]string{"notifications.0: a notification is one of webhook or slack", "config/config.yaml:7:5"}},
		{"both kinds", "timeout: 3s", "slack: {url: https://hooks.slack.com/x}",
			[]string{"notifications.1: a notification is one of webhook or slack", "config/config.yaml:10:5"}},
		{"url and urlFile", "{urlFile: /etc/strata/notify/slack-url}", "{url: https://x.example.com, urlFile: /x}",
			[]string{"notifications.0.slack: give one of url or urlFile", "config/config.yaml:8:12"}},
		{"a relative urlFile", "/etc/strata/notify/slack-url", "secrets/slack-url",
			[]string{`notifications.0.slack.urlFile: expected an absolute path, got "secrets/slack-url"`, "config/config.yaml:8:"}},
		{"a URL without scheme", "https://audit.example.com/strata", "audit.example.com",
			[]string{`notifications.1.webhook.url: expected an http or https URL, got "audit.example.com"`, "config/config.yaml:10:"}},
		{"an unknown event", "[failed, reverted, gated, failed]", "[failed, stalled]",
			[]string{`notifications.0.events.1: unknown event "stalled"`, "config/config.yaml:9:22", "started, healthy, failed"}},
		{"no events", "[failed, reverted, gated, failed]", "[]",
			[]string{"notifications.0.events: expected a non-empty list of events, got an empty list"}},
		{"a misspelled key", "timeout: 3s", "timout: 3s",
			[]string{"notifications.1.timout: unknown key", `did you mean "timeout"?`, "config/config.yaml:11:5"}},
		{"a zero timeout", "timeout: 3s", "timeout: 0s",
			[]string{"notifications.1.timeout: timeout must be more than 0"}},
		{"two of one name", "  - webhook: {url: https://audit.example.com/strata}", "  - name: chat\n    webhook: {url: https://audit.example.com/strata}",
			[]string{`notifications.1.name: a second notification named "chat"`, "config/config.yaml:10:"}},
		{"not a list", "notifications:" + strings.SplitN(notifyConfig, "notifications:", 2)[1], "notifications: {chat: {}}\n",
			[]string{"notifications: expected a list"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			config := strings.Replace(notifyConfig, tt.old, tt.new, 1)
			if config == notifyConfig {
				t.Fatalf("%q is not in the config", tt.old)
			}
			_, err := fleet.Load(fleetFS(config, nil))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}
