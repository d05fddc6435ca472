// Package treestamp tells whether a tree of files changed since it was
// looked at, from the stamps of its files and directories (size,
// modification time, inode and change time, as Git's index keeps them),
// with one rule for the stamps that cannot tell.
//
// A Stamp is taken from a FileInfo (Of). A Dir checks stamps against the
// disk without listing a directory (Look, on Linux): a directory's change
// time moves whenever an entry is added to it, removed from it or renamed
// in or out of it, and nothing can set it back, so while a directory's
// stamp is unchanged its names name the same inodes; a file edited in
// place changes its own stamp.
//
// The racy rule (Stamp.Racy) is Git's: a change made in the same tick of
// the file system's clock as a stamp can keep it, so a stamp whose change
// time is not before the clock, read after the stamp was taken, vouches
// for nothing; its file is compared by content at the next look. As in
// Git, the rule covers the changes made after the clock was read: a
// caller reads it before it uses what the stamps vouch for. The
// clock comes from one of two places: a writer reads the file system's own
// (the change time of a directory it changes after its stamps: package
// output, which saves the stamps of the rendered/ tree), a reader that
// must not write reads the kernel's (Now: package web, which asks whether
// config/ changed since it loaded it).
package treestamp
