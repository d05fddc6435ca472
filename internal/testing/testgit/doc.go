// Package testgit is git as strata's tests run it, and is used only by
// tests: a fixed author and committer and no system or global
// configuration ([Env]), so that a test commits on any machine (a CI
// runner without user.name) and its commits read the same everywhere;
// [Run] runs git so, failing the test on an error; [Setenv] gives the
// identity to code under test that runs git itself (the CLI, strata as
// a child process); [Remote] makes a repository with a bare remote to
// push to, as a fleet repository and its origin.
package testgit
