package live

import "testing"

// TestAppStateReasons: a cell's reason carries Argo CD's own messages: the
// Application's health message and those of its unhealthy resources, so
// that a degraded cell says why, not only which resource.
func TestAppStateReasons(t *testing.T) {
	deploy := Resource{Group: "apps", Kind: "Deployment", Namespace: "monitoring", Name: "prometheus", Status: "Synced",
		Health: "Degraded", Message: `Deployment "prometheus" exceeded its progress deadline`}
	missing := Resource{Kind: "Service", Namespace: "monitoring", Name: "prometheus", Status: "OutOfSync", Health: "Missing"}
	drift := Resource{Kind: "ConfigMap", Namespace: "monitoring", Name: "rules", Status: "OutOfSync", Health: "Healthy"}
	tests := []struct {
		name  string
		app   App
		state State
		want  string
	}{
		{"degraded resource", App{Sync: "Synced", Health: "Degraded", Resources: []Resource{deploy}}, Degraded,
			`unhealthy: Deployment monitoring/prometheus (Deployment "prometheus" exceeded its progress deadline)`},
		{"degraded with app message", App{Sync: "Synced", Health: "Degraded", HealthMessage: "1 of 2 degraded", Resources: []Resource{deploy, missing}}, Degraded,
			`1 of 2 degraded; unhealthy: Deployment monitoring/prometheus (Deployment "prometheus" exceeded its progress deadline), Service monitoring/prometheus`},
		{"degraded, app message only", App{Sync: "Synced", Health: "Degraded", HealthMessage: "0/1 ready"}, Degraded, "0/1 ready"},
		{"progressing", App{Sync: "Synced", Health: "Progressing", HealthMessage: "waiting for rollout to finish"}, Synced,
			"health Progressing; waiting for rollout to finish"},
		{"drift", App{Sync: "OutOfSync", Health: "Healthy", Resources: []Resource{drift}}, OutOfSync, "out of sync: ConfigMap monitoring/rules"},
		{"healthy", App{Sync: "Synced", Health: "Healthy"}, Healthy, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.app.Fresh = true
			st, why := appState(&tt.app, true)
			if st != tt.state || why != tt.want {
				t.Errorf("appState = %s, %q; want %s, %q", st, why, tt.state, tt.want)
			}
		})
	}
}
