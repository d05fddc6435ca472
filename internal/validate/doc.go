// Package validate checks a fleet's rendered Argo CD resources before Argo CD
// sees them: strata validate.
//
// Data comes from the fleet loader and the renderer: Check loads the
// repository, renders every target in memory (nothing is written) and hands
// the outputs to Validate, which runs every check and returns all their
// findings together: no kind of finding hides another. The result is a Report of Findings, data that only
// the CLI prints. A finding names the file it is about (the rendered resource,
// rendered/<type>/<path>/templates/<name>.yaml, or a patch), the line there,
// the field path (spec.source.repoURL), what is wrong, and, when the field
// comes from the configuration, the file, line and column that set it: the
// field spec.X of the Application (ApplicationSet) "foo" is rendered from
// applications.foo.X (applicationsets.foo.X) of the target's merged values,
// whose every leaf knows its position; metadata.labels comes from
// additionalLabels, metadata.annotations from additionalAnnotations (and
// syncWave), metadata.namespace and finalizers from the item's own keys.
//
// # Schemas: as Argo CD's API server checks
//
// Each rendered Application and ApplicationSet is checked against the
// openAPIV3Schema of Argo CD's CRDs, taken from the argo-cd Go module at the
// release in schemas.FileName (package schemas; go generate regenerates it)
// and embedded, so that validation works offline. The checks are the
// Kubernetes API server's own code (k8s.io/apiextensions-apiserver), in the
// order the server runs it on a create with strict field validation:
//
//  1. apiVersion and kind must name a served version of a CRD;
//  2. metadata is decoded strictly as ObjectMeta: unknown fields, wrong
//     types (a number as a label value);
//  3. fields the structural schema does not declare are unknown fields (the
//     server prunes them, and rejects them under strict validation);
//  4. nulls of non-nullable fields are dropped and defaults applied, as the
//     server does, so that `destination: null` reads as a missing field;
//  5. ObjectMeta (names are DNS subdomains), the OpenAPI schema (types,
//     required fields, enums, patterns, formats), embedded resources and
//     x-kubernetes-list-type invariants are validated.
//
// The Argo CD CRDs have no CEL rules; the schema generator refuses any, so
// that a release that adds some is not embedded unchecked. A test starts a
// real kube-apiserver with the same CRDs and checks that it rejects exactly
// the corpus objects (testdata/corpus) this package rejects. Expressions left
// for Argo CD or for Helm ({{ .name }}) are plain strings to the schema, as
// they are to the API server. A rendered resource of another API group is
// reported (a warning) and not checked.
//
// # Sources of this repository
//
// A source whose repoURL is config.yaml's repository.url (compared as
// host/path, whatever the spelling: https, .git, scp-like ssh) and that has a
// path is checked in the working tree, with rendered/ as just rendered: the
// path must exist inside the repository; a directory with Chart.yaml (or a
// source that sets helm) is rendered with Helm's engine as Argo CD's `helm
// template` would render it (release name, namespace, value files, values,
// valuesObject, parameters; values.schema.json applies), and every manifest
// it renders must be YAML; a directory with a kustomization (or a source that
// sets kustomize) is built with the kustomize library with Argo CD's default
// options (load restrictions to the root, no plugins). Nothing is fetched:
// remote Kustomize bases, kustomize helmCharts and chart dependencies that
// are not vendored in charts/ are reported as warnings and not built. A path
// with template expressions left for Argo CD must match some directory with
// each expression taken as *. Each distinct source is checked once, however
// many targets use it. The working tree stands for the revision the source
// names.
//
// # Conflicts
//
// Two patches of one level directory that set the same field: the later one
// in file-name order wins, which is rarely what their authors meant
// (fleet.Level.Conflicts). A warning per field, on the later patch, with the
// earlier one as the source.
//
// # Name collisions in one Argo CD
//
// The inventory (config/clusters/) says which Argo CD runs each cluster's
// rendered/ directory: a cluster with hub: is managed by its hub's Argo CD,
// any other runs its own. Two clusters whose rendered resources land in one
// Argo CD under the same kind, namespace (metadata.namespace, or Argo CD's
// namespace) and name (with what Helm templates remain in it resolved as
// Argo CD's render of the cluster's root resolves them) write the same
// object: one cluster's resource replaces the other's. An error per
// resource, on the first cluster's file, naming every cluster, its target
// and file, and the Argo CD.
//
// # Projects of the roots
//
// A cluster's root objects are in its project (project: in the inventory or
// on its cluster type; default otherwise), and Argo CD syncs them only once
// that AppProject exists in the Argo CD that holds them (the cluster's own,
// or its hub's). A project other than default that no rendered AppProject
// of that Argo CD's cluster names (resolved like collisions' names) is an
// error, at the file and line that set the project: strata bootstrap
// refuses it too.
//
// # Shadowed patches
//
// A patch field that a file of a more specific level sets again (its
// override, or a patch of its own) never reaches the targets under that
// level, although the patch's file is in effect there and promote folds it
// as if it had (fleet.Component.Shadows; status marks those cells). A
// warning per patch, field and winning file, on the patch's line, with the
// winning file's position and the targets it shadows.
//
// # References to missing keys
//
// Targets render as render renders them by default (a reference to a
// missing key gives an empty string), whatever config.yaml's render.missingKeys says,
// and every string of a target's values that holds a template (and
// render.namePrefix) is parsed (text/template/parse) for references to the
// top of Helm's data: .Values.x.y, $.Values.x, .name. One whose key the
// target's values lack is an error at the value's file and line, with the
// fix (.name and the like: an expression meant for Argo CD's templating,
// written {{ argocd ".name" }}), unless it is guarded as Helm users write
// optional values: given or piped to default, required, empty, coalesce,
// hasKey, or, not..., tested by an enclosing if/with/range (a reference
// under a test of the missing key is never evaluated), or relative to a
// with/range's dot. One finding per value and expression, with the
// targets it renders an empty string in (references.go).
//
// # Policies
//
// Warnings: each is a mistake the API server accepts and Argo CD only reveals
// when it syncs.
//
//   - no-source: an Application with neither spec.source nor spec.sources
//     (nor a source hydrator). The CRD requires neither; Argo CD reports the
//     Application as invalid and never syncs it.
//   - create-namespace-without-namespace: syncOptions CreateNamespace=true
//     with no destination namespace: there is nothing to create, and the
//     resources without a namespace of their own land in the Application's
//     default namespace, usually not what was meant.
//   - pinned-revision: a target under a sequence node that pins a revision
//     (revision: in config.yaml) has a source of this repository whose
//     targetRevision is not the pin (or not set, that is HEAD): the pin does
//     not hold for that source. Template it as {{ .Values.cluster.revision }}.
//   - duplicate-deployment: two Applications of one target deploy the same
//     source (repository and path or chart) to the same destination (cluster
//     and namespace), a Helm source under the same release name
//     (helm.releaseName, else the Application's name): Argo CD's two
//     Applications fight over the same resources, each pruning or
//     overwriting the other's.
package validate
