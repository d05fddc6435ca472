package cli

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/hint"
)

// The log of serve and rollout --watch writes an error as Main prints
// one: its hints run against --root, credentials scrubbed; and a message
// that holds an error as text (rollout's own warnings) is scrubbed too.
func TestLoggerCleansErrors(t *testing.T) {
	var stderr strings.Builder
	g := &globals{root: "my fleet", stderr: &stderr}
	abandon := hint.Strata("promote", "--abandon")
	err := hint.Errorf("the journal is damaged; drop it with %s", abandon)
	g.logger().Warn("rollout ended", "error", err)
	g.logger().Warn(fmt.Sprintf("terminating the operation: %v", errors.New("Authorization: Bearer abc.def-ghi_jkl")))
	out := stderr.String()
	for _, want := range []string{`drop it with strata --root 'my fleet' promote --abandon"`, "Bearer "} {
		if !strings.Contains(out, want) {
			t.Errorf("the log lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "abc.def-ghi_jkl") {
		t.Errorf("the log holds a token:\n%s", out)
	}
}
