// Package rootfs is a repository directory as an fs.FS that refuses paths
// leaving it, as os.Root's FS does, with a cheaper way to read many files:
// a Cache, which reads each directory's files through the directory opened
// once.
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
