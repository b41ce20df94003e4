package plan_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// TestJoinKeysStayBounded: each input of a cross join has two keys, and
// combining them once doubled the key count per input (2^20 here).
func TestJoinKeysStayBounded(t *testing.T) {
	var from []string
	for i := 0; i < 20; i++ {
		from = append(from, fmt.Sprintf("a a%d", i))
	}
	p, _ := props(t, "SELECT a0.x FROM "+strings.Join(from, ", "))
	pr := plan.Derive(p.Root.Inputs[0], p.Meta)
	if len(pr.Keys) == 0 || len(pr.Keys) > 16 {
		t.Errorf("%d keys, want 1..16", len(pr.Keys))
	}
}

// TestDeriverAnswersEachNodeOnce: asking a memoizing Deriver about every
// node of a 2,000-branch EXCEPT chain computes each node's properties
// once (linear), not once per ancestor (quadratic).
func TestDeriverAnswersEachNodeOnce(t *testing.T) {
	parts := make([]string, 2000)
	for i := range parts {
		parts[i] = fmt.Sprintf("SELECT x FROM a WHERE x = %d", i)
	}
	p, _ := props(t, strings.Join(parts, " EXCEPT "))
	d := plan.NewDeriver(p.Meta)
	nodes := 0
	p.Root.WalkNodes(func(n *plan.Node) { d.Derive(n); nodes++ })
	if got := plan.DeriverComputed(d); got != nodes {
		t.Errorf("computed properties %d times for %d nodes", got, nodes)
	}
	p.Root.WalkNodes(func(n *plan.Node) { d.Derive(n) })
	if got := plan.DeriverComputed(d); got != nodes {
		t.Errorf("asking again computed %d more times", got-nodes)
	}
}
