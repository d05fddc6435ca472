// Package scaffold holds the small fleet repository that `strata init`
// writes: a config.yaml with two dimensions, a cluster type with defaults and
// one component with a production override. Write copies it into a
// directory without overwriting anything.
package scaffold
