// Package scaffold holds the small fleet repository that `strata init`
// writes: a config.yaml with two dimensions, a repository and a gate, a
// cluster type with defaults, one component with a production override, a
// cluster in the inventory, and CI definitions for GitHub Actions and
// GitLab CI that run render --check, validate, verify and post the fleet
// diff on the pull request. Write copies it into a directory (confined to
// it, without overwriting anything); InitGit makes the directory a Git
// repository with the scaffold as its first commit.
package scaffold
