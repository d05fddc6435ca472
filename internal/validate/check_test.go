package validate

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// fleetFS is a small fleet: two targets (dev/us-east1, and prod/us-east1
// pinned to v1.2.3), an Application from a Helm repository, one from a
// Kustomize directory and one from a Helm chart of the repository itself.
func fleetFS() fstest.MapFS {
	return fstest.MapFS{
		"config/config.yaml": file(`
dimensions: [environments, regions]
sequence:
  environments:
    - name: dev
      regions:
        - name: us-east1
    - name: prod
      revision: v1.2.3
      regions:
        - name: us-east1
cluster_types:
  - name: workload
repository:
  url: https://github.com/example/fleet.git
  revision: main
`),
		"config/workload/defaults.yaml": file(`
applications:
  default:
    project: default
    namespace: argocd
    destination:
      server: https://kubernetes.default.svc
applicationsets:
  default: {}
`),
		"config/workload/podinfo/values.yaml": file(`
applications:
  podinfo:
    source:
      repoURL: https://stefanprodan.github.io/podinfo
      chart: podinfo
      targetRevision: 6.7.1
    destination:
      namespace: podinfo
`),
		"config/workload/guestbook/values.yaml": file(`
applications:
  guestbook:
    source:
      repoURL: https://github.com/example/fleet
      path: apps/guestbook
      targetRevision: '{{ .Values.cluster.revision }}'
    destination:
      namespace: guestbook
`),
		"config/workload/hello/values.yaml": file(`
applications:
  hello:
    source:
      repoURL: git@github.com:example/fleet.git
      path: charts/hello
      targetRevision: '{{ .Values.cluster.revision }}'
      helm:
        valuesObject:
          replicas: 2
    destination:
      namespace: hello
`),
		"apps/guestbook/kustomization.yaml": file(`
resources:
  - deployment.yaml
`),
		"apps/guestbook/deployment.yaml": file(`
apiVersion: apps/v1
kind: Deployment
metadata:
  name: guestbook
`),
		"charts/hello/Chart.yaml": file(`
apiVersion: v2
name: hello
version: 0.1.0
`),
		"charts/hello/values.yaml": file("replicas: 1\n"),
		"charts/hello/templates/deployment.yaml": file(`
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
spec:
  replicas: {{ .Values.replicas }}
`),
	}
}

func file(s string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte(strings.TrimPrefix(s, "\n"))}
}

func TestValidate(t *testing.T) {
	const (
		devGuestbook  = "rendered/workload/dev/us-east1/templates/guestbook.yaml"
		devHello      = "rendered/workload/dev/us-east1/templates/hello.yaml"
		devPodinfo    = "rendered/workload/dev/us-east1/templates/podinfo.yaml"
		prodGuestbook = "rendered/workload/prod/us-east1/templates/guestbook.yaml"
		prodHello     = "rendered/workload/prod/us-east1/templates/hello.yaml"
		prodPodinfo   = "rendered/workload/prod/us-east1/templates/podinfo.yaml"
	)
	tests := []struct {
		name string
		edit map[string]string // files to add or replace ("" removes)
		want []Finding
	}{
		{name: "a valid fleet has no findings"},
		{
			name: "an unknown field names the rendered file, the field and the config line",
			edit: map[string]string{"config/workload/podinfo/prod/override.yaml": `
applications:
  podinfo:
    source:
      targetRevison: 6.7.2
`},
			want: []Finding{{Severity: Error, Check: CheckSchema, File: prodPodinfo, Line: 12, Path: "spec.source.targetRevison",
				Message: `unknown field "targetRevison": did you mean "targetRevision"?`,
				Source:  "config/workload/podinfo/prod/override.yaml:4:22"}},
		},
		{
			name: "a wrong type points at the layer that set it",
			edit: map[string]string{"config/workload/podinfo/values.yaml": `
applications:
  podinfo:
    source:
      repoURL: https://stefanprodan.github.io/podinfo
      chart: podinfo
      targetRevision: 6.7.1
    destination:
      namespace: podinfo
    revisionHistoryLimit: many
`},
			want: []Finding{
				{Severity: Error, Check: CheckSchema, File: devPodinfo, Line: 15, Path: "spec.revisionHistoryLimit",
					Message: `Invalid value: "string": must be of type integer`, Source: "config/workload/podinfo/values.yaml:9:27"},
				{Severity: Error, Check: CheckSchema, File: prodPodinfo, Line: 15, Path: "spec.revisionHistoryLimit",
					Message: `Invalid value: "string": must be of type integer`, Source: "config/workload/podinfo/values.yaml:9:27"},
			},
		},
		{
			name: "a missing required field points at the item",
			edit: map[string]string{
				"config/workload/defaults.yaml": "applications:\n  default:\n    project: default\n",
				"config/workload/podinfo/values.yaml": `
applications:
  podinfo:
    source:
      repoURL: https://stefanprodan.github.io/podinfo
      chart: podinfo
      targetRevision: 6.7.1
`},
			want: []Finding{
				{Severity: Error, Check: CheckSchema, File: devPodinfo, Line: 11, Path: "spec.destination", Message: "Required value", Source: "config/workload/podinfo/values.yaml:3:5"},
				{Severity: Error, Check: CheckSchema, File: prodPodinfo, Line: 11, Path: "spec.destination", Message: "Required value", Source: "config/workload/podinfo/values.yaml:3:5"},
			},
		},
		{
			name: "a Kustomize path that does not exist",
			edit: map[string]string{"config/workload/guestbook/values.yaml": `
applications:
  guestbook:
    source:
      repoURL: https://github.com/example/fleet
      path: apps/guestbok
    destination:
      namespace: guestbook
`},
			want: []Finding{
				{Severity: Error, Check: CheckSource, File: devGuestbook, Line: 9, Path: "spec.source.path",
					Message: "path apps/guestbok does not exist in this repository: did you mean apps/guestbook?", Source: "config/workload/guestbook/values.yaml:5:13"},
				{Severity: Error, Check: CheckSource, File: "rendered/workload/prod/us-east1/templates/guestbook.yaml", Line: 9, Path: "spec.source.path",
					Message: "path apps/guestbok does not exist in this repository: did you mean apps/guestbook?", Source: "config/workload/guestbook/values.yaml:5:13"},
				{Severity: Warning, Check: CheckPolicy, Rule: RulePinnedRevision, File: "rendered/workload/prod/us-east1/templates/guestbook.yaml", Line: 9, Path: "spec.source.targetRevision",
					Message: "the target is pinned to revision v1.2.3 (config/config.yaml:8:17), but this source of the repository follows HEAD (targetRevision not set); use {{ .Values.cluster.revision }}",
					Source:  "config/workload/guestbook/values.yaml:4:7"},
			},
		},
		{
			name: "helm: null is no Helm source: the kustomization is built",
			edit: map[string]string{"config/workload/guestbook/values.yaml": `
applications:
  guestbook:
    source:
      repoURL: https://github.com/example/fleet
      path: apps/guestbook
      targetRevision: '{{ .Values.cluster.revision }}'
      helm: null
    destination:
      namespace: guestbook
`},
		},
		{
			name: "helm: {} on a directory without Chart.yaml is still an error",
			edit: map[string]string{"config/workload/guestbook/values.yaml": `
applications:
  guestbook:
    source:
      repoURL: https://github.com/example/fleet
      path: apps/guestbook
      targetRevision: '{{ .Values.cluster.revision }}'
      helm: {releaseName: guestbook}
    destination:
      namespace: guestbook
`},
			want: []Finding{
				{Severity: Error, Check: CheckSource, File: devGuestbook, Line: 11, Path: "spec.source.path",
					Message: "path apps/guestbook holds no Chart.yaml, but the source sets helm", Source: "config/workload/guestbook/values.yaml:5:13"},
				{Severity: Error, Check: CheckSource, File: prodGuestbook, Line: 11, Path: "spec.source.path",
					Message: "path apps/guestbook holds no Chart.yaml, but the source sets helm", Source: "config/workload/guestbook/values.yaml:5:13"},
			},
		},
		{
			name: "a spelling of the repository's URL is the repository: its paths are checked",
			edit: map[string]string{"config/workload/guestbook/values.yaml": `
applications:
  guestbook:
    source:
      repoURL: ssh://git@GitHub.com:22/example/fleet.git/
      path: apps/guestbok
      targetRevision: '{{ .Values.cluster.revision }}'
    destination:
      namespace: guestbook
`},
			want: []Finding{
				{Severity: Error, Check: CheckSource, File: devGuestbook, Line: 9, Path: "spec.source.path",
					Message: "path apps/guestbok does not exist in this repository: did you mean apps/guestbook?", Source: "config/workload/guestbook/values.yaml:5:13"},
				{Severity: Error, Check: CheckSource, File: prodGuestbook, Line: 9, Path: "spec.source.path",
					Message: "path apps/guestbok does not exist in this repository: did you mean apps/guestbook?", Source: "config/workload/guestbook/values.yaml:5:13"},
			},
		},
		{
			name: "a kustomization that does not build",
			edit: map[string]string{"apps/guestbook/kustomization.yaml": "resources:\n  - deployment.yaml\n  - service.yaml\n"},
			want: []Finding{
				{Severity: Error, Check: CheckSource, File: devGuestbook, Line: 9, Path: "spec.source.path", Message: "kustomize build apps/guestbook fails: accumulating resources: accumulation err='accumulating resources from 'service.yaml': apps/guestbook/service.yaml does not exist': must build at directory: not a valid directory: apps/guestbook/service.yaml does not exist", Source: "config/workload/guestbook/values.yaml:5:13"},
				{Severity: Error, Check: CheckSource, File: prodGuestbook, Line: 9, Path: "spec.source.path", Message: "kustomize build apps/guestbook fails: accumulating resources: accumulation err='accumulating resources from 'service.yaml': apps/guestbook/service.yaml does not exist': must build at directory: not a valid directory: apps/guestbook/service.yaml does not exist", Source: "config/workload/guestbook/values.yaml:5:13"},
			},
		},
		{
			name: "remote Kustomize bases are not fetched",
			edit: map[string]string{"apps/guestbook/kustomization.yaml": "resources:\n  - https://github.com/example/base//deploy?ref=v1\n"},
			want: []Finding{
				{Severity: Warning, Check: CheckSource, File: devGuestbook, Line: 9, Path: "spec.source.path", Message: "kustomize build apps/guestbook was not run: apps/guestbook/kustomization.yaml refers to the remote https://github.com/example/base//deploy?ref=v1", Source: "config/workload/guestbook/values.yaml:5:13"},
				{Severity: Warning, Check: CheckSource, File: prodGuestbook, Line: 9, Path: "spec.source.path", Message: "kustomize build apps/guestbook was not run: apps/guestbook/kustomization.yaml refers to the remote https://github.com/example/base//deploy?ref=v1", Source: "config/workload/guestbook/values.yaml:5:13"},
			},
		},
		{
			name: "a Helm chart of the repository that does not render",
			edit: map[string]string{"charts/hello/templates/service.yaml": "port: {{ .Values.service.port }}\n"},
			want: []Finding{
				{Severity: Error, Check: CheckSource, File: devHello, Line: 12, Path: "spec.source.path", Message: `the Helm chart in charts/hello does not render: hello/templates/service.yaml:1:16 executing "hello/templates/service.yaml" at <.Values.service.port>: nil pointer evaluating interface {}.port`, Source: "config/workload/hello/values.yaml:5:13"},
				{Severity: Error, Check: CheckSource, File: prodHello, Line: 12, Path: "spec.source.path", Message: `the Helm chart in charts/hello does not render: hello/templates/service.yaml:1:16 executing "hello/templates/service.yaml" at <.Values.service.port>: nil pointer evaluating interface {}.port`, Source: "config/workload/hello/values.yaml:5:13"},
			},
		},
		{
			name: "a Helm chart whose dependencies are not vendored is not rendered",
			edit: map[string]string{"charts/hello/Chart.yaml": "apiVersion: v2\nname: hello\nversion: 0.1.0\ndependencies:\n  - name: redis\n    version: 1.0.0\n    repository: https://charts.example.com\n"},
			want: []Finding{
				{Severity: Warning, Check: CheckSource, File: devHello, Line: 12, Path: "spec.source.path", Message: "the Helm chart in charts/hello was not rendered: its dependencies redis are not vendored in charts/hello/charts (Argo CD fetches them; strata works offline)", Source: "config/workload/hello/values.yaml:5:13"},
				{Severity: Warning, Check: CheckSource, File: prodHello, Line: 12, Path: "spec.source.path", Message: "the Helm chart in charts/hello was not rendered: its dependencies redis are not vendored in charts/hello/charts (Argo CD fetches them; strata works offline)", Source: "config/workload/hello/values.yaml:5:13"},
			},
		},
		{
			name: "a source of rendered/ is checked against the render in memory",
			edit: map[string]string{"config/workload/root/values.yaml": `
applications:
  root:
    source:
      repoURL: https://github.com/example/fleet
      path: rendered/workload/{{ .Values.cluster.environment }}/us-east1
      targetRevision: '{{ .Values.cluster.revision }}'
      helm:
        valuesObject:
          cluster:
            name: '{{ .Values.cluster.region }}'
    destination:
      namespace: argocd
  typo:
    source:
      repoURL: https://github.com/example/fleet
      path: rendered/workload/{{ .Values.cluster.environment }}/us-east2
      targetRevision: '{{ .Values.cluster.revision }}'
    destination:
      namespace: argocd
`},
			want: []Finding{
				{Severity: Error, Check: CheckSource, File: "rendered/workload/dev/us-east1/templates/typo.yaml", Line: 9, Path: "spec.source.path", Message: "path rendered/workload/dev/us-east2 does not exist in this repository: did you mean rendered/workload/dev/us-east1?", Source: "config/workload/root/values.yaml:16:13"},
				{Severity: Error, Check: CheckSource, File: "rendered/workload/prod/us-east1/templates/typo.yaml", Line: 9, Path: "spec.source.path", Message: "path rendered/workload/prod/us-east2 does not exist in this repository: did you mean rendered/workload/prod/us-east1?", Source: "config/workload/root/values.yaml:16:13"},
			},
		},
		{
			name: "a path left to Argo CD's templates must match some directory",
			edit: map[string]string{"config/workload/root/values.yaml": `
applicationsets:
  apps:
    generators:
      - git:
          repoURL: https://github.com/example/fleet
          revision: HEAD
          directories:
            - path: apps/*
    template:
      metadata:
        name: '{{ argocd ".path.basename" }}'
      spec:
        project: default
        source:
          repoURL: https://github.com/example/fleet
          path: '{{ argocd ".path.path" }}'
          targetRevision: '{{ .Values.cluster.revision }}'
        destination:
          namespace: '{{ argocd ".path.basename" }}'
  typo:
    generators:
      - list:
          elements: []
    template:
      metadata:
        name: '{{ argocd ".name" }}'
      spec:
        project: default
        source:
          repoURL: https://github.com/example/fleet
          path: 'ap/{{ argocd ".name" }}'
          targetRevision: '{{ .Values.cluster.revision }}'
        destination:
          namespace: x
`},
			want: []Finding{
				{Severity: Warning, Check: CheckSource, File: "rendered/workload/dev/us-east1/templates/typo.yaml", Line: 15, Path: "spec.template.spec.source.path", Message: "no directory of this repository matches ap/{{ .name }} (its template expressions taken as *)", Source: "config/workload/root/values.yaml:31:17"},
				{Severity: Warning, Check: CheckSource, File: "rendered/workload/prod/us-east1/templates/typo.yaml", Line: 15, Path: "spec.template.spec.source.path", Message: "no directory of this repository matches ap/{{ .name }} (its template expressions taken as *)", Source: "config/workload/root/values.yaml:31:17"},
			},
		},
		{
			name: "patches of one level that set the same field",
			edit: map[string]string{
				"config/workload/podinfo/dev/patch-001.yaml": "metadata:\n  description: upgrade\napplications:\n  podinfo:\n    source:\n      targetRevision: 6.8.0\n",
				"config/workload/podinfo/dev/patch-002.yaml": "applications:\n  podinfo:\n    source:\n      targetRevision: 6.9.0\n",
			},
			want: []Finding{
				{Severity: Warning, Check: CheckConflict, File: "config/workload/podinfo/dev/patch-002.yaml", Line: 4, Path: "applications.podinfo.source.targetRevision",
					Message: "patch-001.yaml sets it too, at the same level: patch-002.yaml wins because patches apply in file-name order; merge the two patches, or promote one before the other", Source: "config/workload/podinfo/dev/patch-001.yaml:6:23"},
			},
		},
		{
			name: "policies",
			edit: map[string]string{
				"config/workload/podinfo/values.yaml": `
applications:
  podinfo:
    source:
      repoURL: https://stefanprodan.github.io/podinfo
      chart: podinfo
      targetRevision: 6.7.1
    syncPolicy:
      syncOptions: [CreateNamespace=true]
  podinfo-copy:
    source:
      repoURL: https://stefanprodan.github.io/podinfo
      chart: podinfo
      targetRevision: 6.7.2
      helm: {releaseName: podinfo} # podinfo's release: the same objects
  nothing: {}
`},
			want: []Finding{
				{Severity: Warning, Check: CheckPolicy, Rule: RuleNoSource, File: "rendered/workload/dev/us-east1/templates/nothing.yaml", Line: 7, Path: "spec",
					Message: "the Application has neither spec.source nor spec.sources: the API server accepts it, but Argo CD cannot sync it", Source: "config/workload/podinfo/values.yaml:15:12"},
				{Severity: Warning, Check: CheckPolicy, Rule: RuleDuplicateDeployment, File: devPodinfo, Line: 9, Path: "spec.source",
					Message: "Application podinfo-copy deploys the same source to the same destination: the two will fight over the same resources", Source: "config/workload/podinfo/values.yaml:4:7"},
				{Severity: Warning, Check: CheckPolicy, Rule: RuleCreateNamespace, File: devPodinfo, Line: 16, Path: "spec.syncPolicy.syncOptions",
					Message: "CreateNamespace=true without a destination namespace: there is no namespace to create; set destination.namespace", Source: "config/workload/podinfo/values.yaml:8:20"},
				{Severity: Warning, Check: CheckPolicy, Rule: RuleNoSource, File: "rendered/workload/prod/us-east1/templates/nothing.yaml", Line: 7, Path: "spec",
					Message: "the Application has neither spec.source nor spec.sources: the API server accepts it, but Argo CD cannot sync it", Source: "config/workload/podinfo/values.yaml:15:12"},
				{Severity: Warning, Check: CheckPolicy, Rule: RuleDuplicateDeployment, File: prodPodinfo, Line: 9, Path: "spec.source",
					Message: "Application podinfo-copy deploys the same source to the same destination: the two will fight over the same resources", Source: "config/workload/podinfo/values.yaml:4:7"},
				{Severity: Warning, Check: CheckPolicy, Rule: RuleCreateNamespace, File: prodPodinfo, Line: 16, Path: "spec.syncPolicy.syncOptions",
					Message: "CreateNamespace=true without a destination namespace: there is no namespace to create; set destination.namespace", Source: "config/workload/podinfo/values.yaml:8:20"},
			},
		},
		{
			name: "a resource of another API group is reported, not checked",
			edit: map[string]string{
				"argocd-apps/Chart.yaml":              "apiVersion: v2\nname: apps\nversion: 0.1.0\n",
				"argocd-apps/templates/settings.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  region: {{ .Values.cluster.region }}\n",
			},
			want: []Finding{
				{Severity: Warning, Check: CheckSchema, File: "rendered/workload/dev/us-east1/templates/settings.yaml", Line: 1, Message: "v1 ConfigMap is not an Argo CD resource: not checked"},
				{Severity: Warning, Check: CheckSchema, File: "rendered/workload/prod/us-east1/templates/settings.yaml", Line: 1, Message: "v1 ConfigMap is not an Argo CD resource: not checked"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fleetFS()
			for name, data := range tt.edit {
				if data == "" {
					delete(fsys, name)
				} else {
					fsys[name] = file(data)
				}
			}
			rep, err := Check(Options{FS: fsys})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, rep.Findings, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}
