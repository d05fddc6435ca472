package render

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/strata-fleet/strata/internal/values"
)

// tplFleet is a fleet whose applications' projects are templates that the
// built-in chart runs tpl on: a value, a function, a nested tpl, a
// modification of the values (which makes the render start again on fresh
// values), an include of the chart's own define.
func tplFleet(missingKeys string) fstest.MapFS {
	return fstest.MapFS{
		"config/config.yaml": {Data: []byte(`dimensions: [environments, regions]
cluster_types: [{name: hub}]
render: {missingKeys: ` + missingKeys + `}
sequence:
  environments:
  - name: prod
    regions: [us-east1, eu-west1]
`)},
		"config/hub/defaults.yaml": {Data: []byte("applications:\n  default:\n    project: default\n    destination: {name: in-cluster}\n")},
		"config/hub/apps/values.yaml": {Data: []byte(`applications:
  a:
    project: 'team-{{ .Values.cluster.region }}'
  b:
    project: '{{ printf "%s-%s" .Values.cluster.environment (upper .Values.cluster.region) }}'
  c:
    project: '{{ tpl "{{ .Values.cluster.region }}" . }}-nested'
  d:
    project: '{{ $_ := set .Values.applications.d.destination "namespace" .Values.cluster.region }}default'
  e:
    project: '{{ include "strata.enabled" .Values.applications.e }}-{{ .Release.Name }}'
`)},
	}
}

// Under missingKeys: error, with nothing missing, tpl renders exactly what
// Helm's tpl renders under ignore, with and without shortcuts.
func TestStrictTplGivesHelmsBytes(t *testing.T) {
	render := func(missingKeys string, noShortcuts bool) map[string][]byte {
		t.Helper()
		r, err := Load(tplFleet(missingKeys))
		if err != nil {
			t.Fatal(err)
		}
		r.NoShortcuts = noShortcuts
		outs, err := r.RenderAll(r.Targets(), nil)
		if err != nil {
			t.Fatalf("missingKeys %s, NoShortcuts %v: %v", missingKeys, noShortcuts, err)
		}
		files := map[string][]byte{}
		for _, o := range outs {
			for _, f := range o.Files {
				files[f.Path] = f.Data
			}
		}
		return files
	}
	want := render("ignore", true)
	if a := string(want["rendered/hub/prod/eu-west1/templates/a.yaml"]); !strings.Contains(a, "project: team-eu-west1\n") {
		t.Fatalf("the fleet does not render as meant:\n%s", a)
	}
	for _, mk := range []string{"ignore", "error"} {
		for _, off := range []bool{false, true} {
			got := render(mk, off)
			if len(got) != len(want) {
				t.Errorf("missingKeys %s, NoShortcuts %v: %d files, want %d", mk, off, len(got), len(want))
			}
			for path, data := range want {
				if !bytes.Equal(got[path], data) {
					t.Errorf("missingKeys %s, NoShortcuts %v: %s:\n%s\nwant:\n%s", mk, off, path, got[path], data)
				}
			}
		}
	}
}

// Under missingKeys: error, each reference to a missing key in a text the
// chart runs tpl on is an error at the value that holds it, all at once.
func TestStrictTplNamesEveryValue(t *testing.T) {
	fsys := tplFleet("error")
	fsys["config/hub/apps/values.yaml"] = &fstest.MapFile{Data: []byte(`applications:
  a:
    project: 'team-{{ .Values.cluster.regoin }}'
  b:
    project: '{{ tpl "{{ .Values.nope }}" . }}'
`)}
	r, err := Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Render(r.Targets()[0])
	var got []string
	for _, e := range unjoin(err) {
		var ve *values.Error
		if !errors.As(e, &ve) {
			t.Fatalf("error %v is not at a value", e)
		}
		got = append(got, ve.Pos.String()+" "+ve.Msg)
	}
	want := []string{
		`config/hub/apps/values.yaml:3:14 .Values.cluster.regoin refers to a key the values do not have: "regoin"`,
		`config/hub/apps/values.yaml:5:14 .Values.nope refers to a key the values do not have: "nope"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func unjoin(err error) []error {
	var te *TargetError
	if errors.As(err, &te) {
		err = te.Err
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
