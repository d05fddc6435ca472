// Package localstate says where strata keeps what it knows about one
// checkout of a repository: outside the repository, so that none of it is
// ever committed, shown by git status or taken from a pull request.
//
// Dir is <cache>/strata/repos/<key>, where <cache> is $STRATA_CACHE_DIR or
// the user's cache directory (else the system's temporary directory) and
// <key> is derived from the repository's absolute, symbolic-link-resolved
// path: two names of one checkout share it, two checkouts never do. It
// holds the render state (package output), the repository lock (package
// lock) and the journals of interrupted writes.
package localstate
