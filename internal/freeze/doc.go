// Package freeze owns the freezes of a fleet repository: the record,
// committed in config/freezes.yaml, that stops the line. While a node of
// the sequence is frozen, no promote and no rollout starts a step into it
// (or into a node under it, or one above it whose step would reach it); a
// freeze without a node freezes the whole fleet.
//
// The file is a list under freezes:, one entry per freeze: node, by (who,
// "Name <email>"), at (when, RFC 3339) and reason. strata freeze and strata
// unfreeze write it ([Add], [Remove], [Encode]) and commit it, so that Git
// keeps who froze and unfroze what, when and why; it is read with the
// position of every entry ([Parse], [Read]), and a bad entry is an error at
// its line, as is a node the sequence does not have ([Check]).
//
// [Holding] says which freeze holds a step into a node; [*FrozenError] is
// the error promote and rollout stop with, naming the freeze, who and why.
// Package verify flags a change that reaches a target under a freeze.
package freeze
