package fleet

import (
	"fmt"
	"path"
	"strings"
)

// TargetPattern is a --target glob as every command takes it: a path.Match
// pattern on a target's name, with or without its cluster type in front,
// or on a parent node's ("production", "production/*",
// "management-cluster/production/*" and "*/*/us-east1" all match the
// management-cluster target production/prod-sector-1/us-east1).
type TargetPattern string

// Check reports a pattern that path.Match cannot read, naming the flag.
func (p TargetPattern) Check() error {
	if _, err := path.Match(string(p), ""); err != nil {
		return fmt.Errorf("--target %s: %w", string(p), err)
	}
	return nil
}

// Matches reports whether p matches the target of cluster type clusterType
// at node nodeID (a target's path in the sequence, "env/sector/region"),
// or one of its parents. The empty pattern matches every target.
func (p TargetPattern) Matches(clusterType, nodeID string) bool {
	return p == "" || matchPrefix(string(p), nodeID) || matchPrefix(string(p), clusterType+"/"+nodeID)
}

// matchPrefix reports whether pattern matches name or one of its parents.
func matchPrefix(pattern, name string) bool {
	for {
		if ok, _ := path.Match(pattern, name); ok {
			return true
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			return false
		}
		name = name[:i]
	}
}
