package diff

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDeletionOf(t *testing.T) {
	tests := []struct {
		name, kind, text string
		want             *Deletion
	}{
		{name: "an Application without the finalizer leaves its workloads", kind: "Application",
			text: "kind: Application\nmetadata:\n  name: a\n", want: &Deletion{}},
		{name: "the resources finalizer deletes the workloads", kind: "Application",
			text: "kind: Application\nmetadata:\n  finalizers: [resources-finalizer.argocd.argoproj.io]\n", want: &Deletion{Workloads: true}},
		{name: "the background variant of the finalizer too", kind: "Application",
			text: "kind: Application\nmetadata:\n  finalizers: [resources-finalizer.argocd.argoproj.io/background]\n", want: &Deletion{Workloads: true}},
		{name: "an ApplicationSet deletes what it generates", kind: "ApplicationSet",
			text: "kind: ApplicationSet\nspec: {}\n", want: &Deletion{Generated: true}},
		{name: "unless its sync policy preserves it", kind: "ApplicationSet",
			text: "kind: ApplicationSet\nspec:\n  syncPolicy:\n    preserveResourcesOnDeletion: true\n", want: &Deletion{}},
		{name: "other files delete nothing Argo CD manages", kind: "", text: "a: 1\n", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, deletionOf(tt.kind, "templates/a.yaml", []byte(tt.text))); diff != "" {
				t.Errorf("deletionOf (-want +got):\n%s", diff)
			}
		})
	}
}
