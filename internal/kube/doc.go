// Package kube is how strata reaches Kubernetes API servers, whatever
// client it builds (package live's lists and watches, bootstrap's
// server-side apply, Helm's install of Argo CD): the safeguards every
// client gets, in one place.
//
//   - [Secure] wraps a rest.Config's transport: a redirect to another
//     scheme, host or port is refused (client-go's credentials, the bearer
//     token and the client certificate, would go with it), and an error
//     response whose body is no Kubernetes Status (a proxy's page, an empty
//     500) is turned into one that carries the server's own words, so that
//     the error client-go makes of it says what the server said. A Status
//     the server sent, in JSON or in the protobuf typed clientsets ask
//     for, goes on as it is (unzipped if a proxy zipped it); a successful
//     response, a watch's stream above all, is never read.
//   - [Scrub] takes tokens, passwords, private keys and client
//     certificates out of a text before it is printed, logged or served:
//     client-go and kubeconfig loading print whole credential structs in
//     some errors. [Load] reads a kubeconfig and remembers its secrets, so
//     that Scrub removes them even where no pattern would find them.
//   - [NormalURL] and [SameServer] compare API server URLs as servers, not
//     as text: scheme and host case, a trailing dot, the default port and
//     the path do not make two spellings of one server two servers, and
//     hosts that resolve to a common address on the same scheme, port and
//     path are one server too.
//
// Deadlines are the callers': every call strata makes to an API server runs
// under a context with the command's own deadline (ARCHITECTURE.md says
// which bounds which). Nothing here prints.
package kube
