package fleet_test

import (
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/fleet"
)

func TestRenderNamePrefix(t *testing.T) {
	tests := []struct {
		name, render string
		want         string // the prefix, or the error's text
		fails        bool
	}{
		{name: "no prefix", render: "render: {missingKeys: error}\n", want: ""},
		{name: "a template of the values", render: "render:\n  namePrefix: '{{ .Values.cluster.region }}-'\n", want: "{{ .Values.cluster.region }}-"},
		{name: "a double quote", render: "render:\n  namePrefix: '{{ printf \"%s-\" .Values.cluster.region }}'\n", fails: true,
			want: "render.namePrefix: the name prefix cannot hold \", \\ or control characters\n    config/config.yaml:16:15"},
		{name: "not a string", render: "render:\n  namePrefix: [a]\n", fails: true, want: "render.namePrefix: expected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := fleet.Load(fleetFS(inventoryConfig+tt.render, nil))
			if tt.fails {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("error %v, want one containing %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Config.Render.NamePrefix; got != tt.want {
				t.Errorf("prefix %q, want %q", got, tt.want)
			}
		})
	}
}
