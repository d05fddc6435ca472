package cli

import (
	"os"
	"os/exec"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestVersionFrom(t *testing.T) {
	vcs := []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "80719f15bedfd26d1f095a2f1c31a0ecfc4457ba"},
		{Key: "vcs.time", Value: "2026-11-21T14:17:35Z"},
		{Key: "vcs.modified", Value: "true"},
	}
	tests := []struct {
		name   string
		bi     *debug.BuildInfo
		linked string
		want   versionInfo
	}{
		{name: "no build information is the last release, in development", want: versionInfo{Version: Release + "+devel"}},
		{name: "a go install of a tag gives the module version",
			bi:   &debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}},
			want: versionInfo{Version: "v0.4.0"}},
		{name: "a build from a work tree is the last release, in development",
			bi:   &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			want: versionInfo{Version: Release + "+devel"}},
		{name: "the linker's version wins, the commit comes from the VCS stamp",
			bi:     &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs},
			linked: "v1.0.0",
			want: versionInfo{Version: "v1.0.0", Commit: "80719f15bedfd26d1f095a2f1c31a0ecfc4457ba",
				Date: "2026-11-21T14:17:35Z", Modified: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := versionFrom(tt.bi, tt.linked)
			got.Go, got.Platform, got.ArgoCD = "", "", ""
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("versionFrom (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReleaseIsTheChangelogs keeps Release, the last version CHANGELOG.md
// records and the version hack/release.sh stamps without a tag the same,
// so that strata --version agrees with the changelog however it is built.
func TestReleaseIsTheChangelogs(t *testing.T) {
	data, err := os.ReadFile("../../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^## (v\d+\.\d+\.\d+\S*)`).FindSubmatch(data)
	if m == nil {
		t.Fatal("CHANGELOG.md has no version heading (## vX.Y.Z)")
	}
	if got := string(m[1]); got != Release {
		t.Errorf("CHANGELOG.md's last version is %s, cli.Release is %s: cut both together", got, Release)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash to run hack/release.sh")
	}
	cmd := exec.Command("bash", "../../hack/release.sh", "--version")
	// No repository: no tag describes HEAD.
	cmd.Env = append(os.Environ(), "GIT_DIR=/nonexistent", "VERSION=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hack/release.sh --version: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != Release {
		t.Errorf("hack/release.sh stamps %s without a tag, cli.Release is %s", got, Release)
	}
}
