package freeze_test

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/freeze"
	"github.com/strata-fleet/strata/internal/values"
)

var at = time.Date(2026, 11, 26, 13, 40, 0, 0, time.UTC)

func TestEncodeParse(t *testing.T) {
	in := []freeze.Freeze{
		{Node: "production", By: "Jane Doe <jane@example.com>", At: at, Reason: "INC-42: the database fails over"},
		{By: "Ops <ops@example.com>", At: at.Add(time.Hour), Reason: "yes: a \"quoted\" reason\nover two lines, é"},
	}
	data := freeze.Encode(in)
	got, err := freeze.Parse(freeze.File, data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if d := cmp.Diff(in, got, cmpopts.IgnoreFields(freeze.Freeze{}, "Pos")); d != "" {
		t.Errorf("round trip (-want +got):\n%s\n%s", d, data)
	}
	if got[1].Pos.Line != 10 || got[1].Pos.File != freeze.File {
		t.Errorf("the second freeze is at %v, want %s:10\n%s", got[1].Pos, freeze.File, data)
	}
	empty, err := freeze.Parse(freeze.File, freeze.Encode(nil))
	if err != nil || len(empty) != 0 {
		t.Errorf("no freezes: %v, %v", empty, err)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"a list at the top", "- node: production\n", "expected a mapping, got a list"},
		{"an unknown key", "freezes: []\nfrozen: yes\n", "frozen: unknown key\n    config/freezes.yaml:2:1"},
		{"no reason", "freezes:\n  - node: production\n    by: Jane <j@x>\n    at: 2026-11-26T13:40:00Z\n",
			"freezes.0: missing key reason\n    config/freezes.yaml:2:5"},
		{"a time that is none", "freezes:\n  - {node: production, by: Jane <j@x>, at: yesterday, reason: why}\n",
			"freezes.0.at: \"yesterday\" is not a time\n    config/freezes.yaml:2:"},
		{"an empty reason", "freezes:\n  - {by: Jane <j@x>, at: 2026-11-26T13:40:00Z, reason: ''}\n",
			"freezes.0.reason: expected a non-empty string"},
		{"a node frozen twice", "freezes:\n  - {node: production, by: a <a@x>, at: 2026-11-26T13:40:00Z, reason: one}\n  - {node: production, by: b <b@x>, at: 2026-11-26T13:40:00Z, reason: two}\n",
			"freezes.1: production is frozen twice\n    config/freezes.yaml:3:5\n    config/freezes.yaml:2:5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := freeze.Parse(freeze.File, []byte(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestRead(t *testing.T) {
	cfg := config(t)
	fsys := fstest.MapFS{freeze.File: {Data: []byte("freezes:\n  - {node: prodution, by: a <a@x>, at: 2026-11-26T13:40:00Z, reason: one}\n")}}
	_, err := freeze.Read(fsys, cfg)
	if err == nil || !strings.Contains(err.Error(), `freezes.0.node: no node "prodution" in the sequence`) || !strings.Contains(err.Error(), `did you mean "production"?`) {
		t.Errorf("error %v", err)
	}
	none, err := freeze.Read(fstest.MapFS{}, cfg)
	if err != nil || none != nil {
		t.Errorf("without the file: %v, %v", none, err)
	}
}

func TestHolding(t *testing.T) {
	prod := freeze.Freeze{Node: "production/eu", By: "a <a@x>", At: at, Reason: "INC-1", Pos: fleetPos(4)}
	tests := []struct {
		node    string
		freezes []freeze.Freeze
		held    bool
	}{
		{"production/eu", []freeze.Freeze{prod}, true},
		{"production/eu/eu-west1", []freeze.Freeze{prod}, true},
		{"production", []freeze.Freeze{prod}, true}, // the step would reach production/eu
		{"production/us", []freeze.Freeze{prod}, false},
		{"production/europe", []freeze.Freeze{prod}, false}, // a name that starts alike
		{"integration/us-east1", []freeze.Freeze{{By: "a <a@x>", At: at, Reason: "all"}}, true},
		{"", []freeze.Freeze{prod}, true}, // a fold reaches every node
		{"integration", nil, false},
	}
	for _, tt := range tests {
		err := freeze.Check(tt.freezes, tt.node)
		var fe *freeze.FrozenError
		if held := errors.As(err, &fe); held != tt.held {
			t.Errorf("Check(%q) = %v, want held %v", tt.node, err, tt.held)
		}
	}
	want := "no step starts into production: production/eu is frozen by a <a@x> since 2026-11-26T13:40:00Z: INC-1 (config/freezes.yaml:4; strata unfreeze production/eu lifts it)"
	if err := freeze.Check([]freeze.Freeze{prod}, "production"); err == nil || err.Error() != want {
		t.Errorf("message:\n got %v\nwant %s", err, want)
	}
	all := freeze.Freeze{By: "a <a@x>", At: at, Reason: "all", Pos: fleetPos(5)}
	want = "no step that reaches every node (a fold into values.yaml) starts: the whole fleet is frozen by a <a@x> since 2026-11-26T13:40:00Z: all (config/freezes.yaml:5; strata unfreeze lifts it)"
	if err := freeze.Check([]freeze.Freeze{all}, ""); err == nil || err.Error() != want {
		t.Errorf("message:\n got %v\nwant %s", err, want)
	}
}

func TestAddRemove(t *testing.T) {
	one := freeze.Freeze{Node: "production", By: "a <a@x>", At: at, Reason: "one", Pos: fleetPos(6)}
	list, err := freeze.Add(nil, one)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := freeze.Add(list, freeze.Freeze{Node: "production", By: "b <b@x>", At: at, Reason: "two"}); err == nil ||
		!strings.Contains(err.Error(), "production is frozen by a <a@x> since 2026-11-26T13:40:00Z: one (config/freezes.yaml:6); nothing was changed") {
		t.Errorf("a second freeze of production: %v", err)
	}
	if _, _, err := freeze.Remove(list, ""); err == nil || !strings.Contains(err.Error(), "the whole fleet is not frozen itself; the freezes are:\n  config/freezes.yaml:6: production is frozen") {
		t.Errorf("unfreezing the fleet while production is frozen: %v", err)
	}
	rest, gone, err := freeze.Remove(list, "production")
	if err != nil || len(rest) != 0 || gone.Reason != "one" {
		t.Errorf("Remove: %v, %+v, %v", rest, gone, err)
	}
}

func fleetPos(line int) values.Pos { return values.Pos{File: freeze.File, Line: line} }

func config(t *testing.T) *fleet.Config {
	t.Helper()
	f, err := fleet.Load(fstest.MapFS{
		"config/config.yaml": {Data: []byte("dimensions: [environments, regions]\nsequence:\n  environments:\n    - name: integration\n      regions: [us-east1]\n    - name: production\n      regions: [us-east1]\ncluster_types: []\n")},
	})
	if err != nil {
		t.Fatal(err)
	}
	return f.Config
}
