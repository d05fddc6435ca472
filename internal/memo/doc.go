// Package memo is a bounded memo table for results computed from immutable
// inputs, which render and values use to compute what many targets share
// once.
//
// A fleet's targets share most of their values, but some inputs belong to
// one target alone (a region's override.yaml): remembering every result
// would make memory grow with the number of targets rendered. A Table keeps
// two generations of entries: new entries go to the current one, and when
// it is full it becomes the old one and the previous old one is dropped. A
// hit in the old generation moves the entry back into the current one. So
// an entry that targets keep using stays, one that no target used for a
// generation goes, and a Table never holds more than twice its size.
//
// Dropping an entry only costs computing it again: callers store results
// that are a function of the key (and, for keys that hold an address, the
// object it points to, which the entry keeps alive), so a miss gives the
// same result as a hit.
package memo
