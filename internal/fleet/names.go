package fleet

import (
	"fmt"
	"strings"

	"github.com/strata-fleet/strata/internal/suggest"
	"github.com/strata-fleet/strata/internal/values"
)

// maxNameLen bounds a name, so that the files named after it (with a
// prefix, ".yaml" and a temporary suffix) stay under the 255 bytes every
// file system allows.
const maxNameLen = 200

// checkName reports whether s can be used as one path segment on every
// platform Git and Argo CD run on. Names come from the repository, so the
// rule is an allow-list: ASCII letters, digits, '-', '_' and '.', starting
// with a letter or a digit (not '.': ".git", "." and ".." are special to
// Git and to file systems; not '-': it reads as an option), not ending with
// '.' (Windows drops it), and not a name Windows reserves for a device
// (CON, NUL, COM1, ...; with any extension). Non-ASCII letters are refused
// too: macOS stores them decomposed, so the name read back from a directory
// is not the one written in config.yaml.
func checkName(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("name is empty")
	case s == "." || s == "..":
		return fmt.Errorf("name %q is not allowed", s)
	case strings.ContainsAny(s, "/\\\x00"):
		return fmt.Errorf("name %q must not contain '/', '\\' or NUL", s)
	case strings.TrimSpace(s) != s:
		return fmt.Errorf("name %q must not start or end with spaces", s)
	case len(s) > maxNameLen:
		return fmt.Errorf("name %.20q... is %d bytes long (at most %d)", s, len(s), maxNameLen)
	}
	for i, r := range s {
		if !nameChar(r) {
			return fmt.Errorf("name %q must not contain %q (at byte %d)", s, r, i)
		}
	}
	switch {
	case !isAlnum(rune(s[0])):
		return fmt.Errorf("name %q must start with a letter or a digit", s)
	case strings.HasSuffix(s, "."):
		return fmt.Errorf("name %q must not end with '.'", s)
	case windowsReserved(s):
		return fmt.Errorf("name %q is a device name on Windows", s)
	}
	return nil
}

func isAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

func nameChar(r rune) bool { return isAlnum(r) || r == '-' || r == '_' || r == '.' }

// windowsReserved reports whether s, up to its first '.', is a device name
// of Windows, in any case: Windows opens the device instead of the file.
func windowsReserved(s string) bool {
	base, _, _ := strings.Cut(strings.ToUpper(s), ".")
	switch base {
	case "CON", "PRN", "AUX", "NUL":
		return true
	}
	return len(base) == 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) && base[3] >= '0' && base[3] <= '9'
}

// nameHint is the rule of checkName, for messages.
const nameHint = "names are path segments (they name directories under config/ and rendered/): use ASCII letters, digits, '-', '_' and '.', starting with a letter or a digit"

// nameError reports a name that checkName refuses, at pos.
func nameError(pos values.Pos, path []string, err error) *values.Error {
	return &values.Error{Pos: pos, Path: path, Msg: err.Error(), Hint: nameHint}
}

// closest returns the candidate nearest to s when it is near enough to be
// a likely typo, or "".
func closest(s string, candidates []string) string {
	return suggest.Closest(s, candidates, len(s)/2+1)
}

// choices formats names as a list for messages.
func choices(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

// didYouMean is the hint of got, which is none of names: the likely
// intended name, and the names, or when there are many the nearest of them
// (never all the targets of a large fleet).
func didYouMean(got string, names []string) string {
	list := "one of: " + choices(names)
	if len(names) > suggest.Shown {
		list = suggest.NearestList(got, names, suggest.Shown)
	}
	if s := closest(got, names); s != "" {
		return fmt.Sprintf("did you mean %q? (%s)", s, list)
	}
	return list
}
