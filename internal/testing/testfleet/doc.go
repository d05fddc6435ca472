// Package testfleet is test-only: a small fleet repository in seed 003's
// layout, embedded, for the tests of status, explain, diff and web.
//
// It has one cluster type (management-cluster), three environments
// (integration; stage and production behind manual gates) of nine targets,
// and three components: cert-manager (a Helm chart with overrides and two
// patches being rolled out), prometheus (a chart with a region-level patch)
// and hypershift (an Application with several sources). [FS] returns it as an
// fs.FS; [Write] copies it into a directory, for tests that need files on
// disk (Git, the web server's reload).
package testfleet
