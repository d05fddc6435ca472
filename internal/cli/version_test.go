package cli

import (
	"runtime/debug"
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
		{name: "no build information is devel", want: versionInfo{Version: "devel"}},
		{name: "a go install of a tag gives the module version",
			bi:   &debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}},
			want: versionInfo{Version: "v0.4.0"}},
		{name: "a build from a work tree is devel",
			bi:   &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			want: versionInfo{Version: "devel"}},
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
