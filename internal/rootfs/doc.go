// Package rootfs is a repository directory as an fs.FS that refuses paths
// leaving it, as os.Root's FS does, with a cheaper way to read many files:
// a Cache, which reads each directory's files through the directory opened
// once.
//
// It also refuses git's data (gitdata.go): any path with a .git component,
// the git directory a .git file names, $GIT_DIR and $GIT_COMMON_DIR when
// inside the repository, and whatever a symbolic link inside the
// repository leads to there. A clone's .git/config can hold a remote's
// credentials: a chart file or values file linked to it would otherwise be
// rendered into rendered/ and printed by diff. The error (*GitDataError)
// names the link and its target. Every input strata reads from the work
// tree comes through this FS.
//
// os.Root resolves every path from the root, one component at a time, each
// opened and closed again: reading config/<type>/<component>/<env>/<sector>/
// <region>/override.yaml costs eight opens. Loading a fleet of 10,000
// targets reads some 10,000 level directories and files that way, which was
// half of a no-op render. A Cache keeps the directories it reads open (the
// most recently used ones, up to a bound, as sub-roots of the repository)
// and reads a file as one open relative to its directory. Whatever fails
// that way is asked of the repository's os.Root again, whose answer (and
// error) is the one returned: the results are os.Root's, only cheaper.
//
// An open directory stays the directory it was when opened, even if it is
// removed or replaced, so a Cache is for one pass of reading (package
// fleet's load) and is closed after it; the FS itself keeps nothing open.
package rootfs
