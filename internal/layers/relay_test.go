package layers_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/internal/layers"
)

// TestRelayLinksNoPlanner: the wire relay (package proxy) reads SQL text
// with internal/sqltext and links no planner/... package (issue 38): a
// relay that needed the planner would grow with it, and so would every
// binary that only relays.
func TestRelayLinksNoPlanner(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", layers.Module+"/proxy").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, layers.Module+"/planner/") {
			t.Errorf("the relay links %s", p)
		}
	}
}
