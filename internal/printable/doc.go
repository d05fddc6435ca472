// Package printable makes text that strata did not write safe to print on
// a terminal: commit subjects, trailers and messages read from Git, which
// anyone with push access writes. Its one function shows every control
// character but newline and tab in caret notation (ESC as ^[), so that an
// escape sequence in a commit message is seen, not obeyed. The callers are
// the CLI (rollout's lines, every error) and package status (the
// rollouts' table and page).
package printable
