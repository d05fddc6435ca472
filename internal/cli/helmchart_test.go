package cli_test

import (
	"github.com/rogpeppe/go-internal/testscript"
	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
)

// cmdHelmchart writes a chart archive as helm pull leaves it in Helm's
// cache, for scenarios that hydrate a remote chart without a network:
//
//	helmchart DIR NAME VERSION   DIR/NAME-VERSION.tgz: a Deployment NAME whose image tag is VERSION
func cmdHelmchart(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: helmchart DIR NAME VERSION")
	}
	c := &chart.Chart{
		Metadata: &chart.Metadata{APIVersion: "v2", Name: args[1], Version: args[2]},
		Values:   map[string]any{"replicas": 1},
		Templates: []*common.File{{Name: "templates/deployment.yaml", Data: []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
  namespace: {{ .Release.Namespace }}
spec:
  replicas: {{ .Values.replicas }}
  template:
    spec:
      containers:
        - name: app
          image: example/` + args[1] + `:` + args[2] + `
`)}},
	}
	_, err := chartutil.Save(c, ts.MkAbs(args[0]))
	ts.Check(err)
}
