package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/strata-fleet/strata/internal/validate/schemas"
)

// Version is set at build time with -ldflags "-X .../internal/cli.Version=v1.2.3"
// (make release does). Without it, the module version that `go install
// module@tag` stamps is used, and without that Release+"+devel".
var Version = ""

// Release is the last version CHANGELOG.md records (its first "## v"
// heading), what hack/release.sh stamps when no tag names the commit; a
// test keeps the three in line. Cutting a version changes both.
const Release = "v0.1.0"

// versionInfo is what `strata version` reports. Everything comes from the
// binary itself: the linker flag, or the build information Go records.
type versionInfo struct {
	Version string `json:"version"`
	// Commit and Date are the VCS revision the binary was built from and
	// its commit time (not the build time, so that builds are
	// reproducible); Modified says the work tree had uncommitted changes.
	Commit   string `json:"commit,omitempty"`
	Date     string `json:"date,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
	// ArgoCD is the Argo CD release whose CRD schemas validate embeds.
	ArgoCD string `json:"argocd"`
}

func newVersionCmd(g *globals) *cobra.Command {
	var out outputFormat
	cmd := &cobra.Command{
		Use:         "version",
		Annotations: map[string]string{reportAnnotation: "yes"},
		Short:       "Print strata's version, commit, build date and the Argo CD release validate checks against",
		Example: `  strata version
  strata --version
  strata version -o json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			v := readVersion()
			if out.data() {
				return out.write(g.stdout, v)
			}
			printVersion(g.stdout, v)
			return nil
		},
	}
	addOutputFlag(cmd.Flags(), &out, "")
	return cmd
}

// printVersion prints v as `strata --version` and `strata version` do.
func printVersion(w io.Writer, v versionInfo) {
	fmt.Fprintf(w, "strata %s\n", v.Version)
	if v.Commit != "" {
		modified := ""
		if v.Modified {
			modified = " (modified)"
		}
		fmt.Fprintf(w, "  commit:   %s%s\n", v.Commit, modified)
	}
	if v.Date != "" {
		fmt.Fprintf(w, "  date:     %s\n", v.Date)
	}
	fmt.Fprintf(w, "  go:       %s %s\n", v.Go, v.Platform)
	fmt.Fprintf(w, "  argo cd:  %s (schemas for validate)\n", v.ArgoCD)
}

// readVersion collects the version information of the running binary.
func readVersion() versionInfo {
	bi, _ := debug.ReadBuildInfo()
	return versionFrom(bi, Version)
}

// versionFrom reads the version information from a binary's build
// information (nil when it has none) and the version set by the linker.
func versionFrom(bi *debug.BuildInfo, linked string) versionInfo {
	v := versionInfo{Version: Release + "+devel", Go: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH, ArgoCD: schemas.ArgoCDVersion}
	if bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v.Version = bi.Main.Version
	}
	if linked != "" {
		v.Version = linked
	}
	if bi == nil {
		return v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.Date = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}
