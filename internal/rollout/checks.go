package rollout

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/strata-fleet/strata/internal/alert"
	"github.com/strata-fleet/strata/internal/fleet"
)

// CheckEnv is what a check finds in its environment, besides strata's own.
type CheckEnv struct {
	ClusterType, Component, Patch string
	// Step is the node the step moved the patch to; Commit the step's.
	Step, Commit string
	// Targets are the targets (<type>/<node>) whose rendered output the
	// step changed, Clusters the inventory's clusters at them.
	Targets, Clusters []string
}

// Environ returns the variables: STRATA_CLUSTER_TYPE, STRATA_COMPONENT,
// STRATA_PATCH, STRATA_STEP, STRATA_COMMIT, STRATA_TARGETS and
// STRATA_CLUSTERS (space-separated).
func (e CheckEnv) Environ() []string {
	return []string{
		"STRATA_CLUSTER_TYPE=" + e.ClusterType,
		"STRATA_COMPONENT=" + e.Component,
		"STRATA_PATCH=" + e.Patch,
		"STRATA_STEP=" + e.Step,
		"STRATA_COMMIT=" + e.Commit,
		"STRATA_TARGETS=" + strings.Join(e.Targets, " "),
		"STRATA_CLUSTERS=" + strings.Join(e.Clusters, " "),
	}
}

// runCheck runs c's command with sh -c in dir, bounded by its timeout; the
// error says why it failed, with the end of its output. A Prometheus check
// runs its query instead: samples fail it, named in the error.
func runCheck(ctx context.Context, dir string, c fleet.Check, env CheckEnv) error {
	if c.Prometheus != nil {
		return queryCheck(ctx, c)
	}
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", c.Command)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env.Environ()...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5e9
	err := cmd.Run()
	if err == nil {
		return nil
	}
	tail := lastLines(out.String(), 20)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("timed out after %s%s", c.Timeout, tail)
	}
	return fmt.Errorf("%w%s", err, tail)
}

// queryCheck runs a Prometheus check: as an alerting rule, a query that
// returns samples means trouble.
func queryCheck(ctx context.Context, c fleet.Check) error {
	samples, err := alert.Client{Timeout: c.Timeout}.Query(ctx, c.Prometheus.URL, c.Prometheus.Query)
	if err != nil {
		return err
	}
	if len(samples) > 0 {
		return fmt.Errorf("the query %s returned %d samples: %s", c.Prometheus.Query, len(samples), alert.Describe(samples))
	}
	return nil
}

func lastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "\n    " + strings.Join(lines, "\n    ")
}
