// Package parallel runs the iterations of a loop on a few goroutines: the
// work of many targets (rendering, checking, stamping their files) spread
// over the machine's cores, each index taken by the next free goroutine.
package parallel
