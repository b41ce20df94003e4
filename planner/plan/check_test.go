package plan_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// cyclicPlan builds what a faulty rewrite once made (issue 9, item 1):
// the output column c is defined as the aggregate g while g := max(c).
func cyclicPlan(t *testing.T) (*plan.Plan, plan.ColumnID, plan.ColumnID) {
	t.Helper()
	p, _ := props(t, "SELECT x FROM a")
	scan := p.Root.Inputs[0]
	c := p.Meta.AddColumn(plan.ColumnMeta{Name: "x", Type: catalog.Int, Instance: -1, Ordinal: -1})
	g := p.Meta.AddColumn(plan.ColumnMeta{Name: "max", Type: catalog.Int, Instance: -1, Ordinal: -1})
	agg := &plan.Node{Op: plan.OpAggregate, Inputs: []*plan.Node{scan},
		Aggs: []plan.ProjItem{{ID: g, Expr: &plan.Expr{Kind: plan.Agg, Name: "max", Typ: catalog.Int, Args: []*plan.Expr{plan.NewCol(c, catalog.Int)}}}}}
	p.Root = &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{agg}, Proj: []plan.ProjItem{{ID: c, Expr: plan.NewCol(g, catalog.Int)}}}
	return p, c, g
}

func TestCyclicDefinitionRendersMarker(t *testing.T) {
	p, _, g := cyclicPlan(t)
	for _, anonymous := range []bool{false, true} {
		f := plan.NewFormatter(p.Meta, p.Root, anonymous)
		got := f.Node(p.Root)
		// Rendering #g reaches g again through c.
		if want := fmt.Sprintf("max(?cycle#%d)", g); !strings.Contains(got, want) {
			t.Errorf("anonymous=%v: %q lacks %q", anonymous, got, want)
		}
	}
	if s := p.Canonical(); !strings.Contains(s, "?cycle#") {
		t.Errorf("Canonical: %q", s)
	}
}

func TestCheckDefinitions(t *testing.T) {
	p, c, g := cyclicPlan(t)
	err := plan.CheckDefinitions(p)
	if !errors.Is(err, plan.ErrCyclicDefinition) {
		t.Fatalf("got %v, want ErrCyclicDefinition", err)
	}
	if want := fmt.Sprintf("#%d -> #%d -> #%d", c, g, c); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name the cycle %s", err, want)
	}
	// Break the cycle: g := max(x) over the scan column.
	p.Root.Inputs[0].Aggs[0].Expr.Args[0] = plan.NewCol(p.Root.Inputs[0].Inputs[0].Cols[1], catalog.Int)
	if err := plan.CheckDefinitions(p); err != nil {
		t.Errorf("acyclic plan: %v", err)
	}
	for _, sql := range []string{
		"SELECT x + 1 AS y FROM (SELECT x * 2 AS x FROM a) s",
		"SELECT max(x), count(*) FROM a GROUP BY n HAVING sum(x) > 1",
		"SELECT (SELECT max(y) FROM b WHERE b.a_id = a.id) FROM a",
	} {
		if p, _ := props(t, sql); plan.CheckDefinitions(p) != nil {
			t.Errorf("%s: %v", sql, plan.CheckDefinitions(p))
		}
	}
}

// TestFormatNestedSubqueriesLinear: nested subqueries are collected and
// rendered once each; this took 2^depth before.
func TestFormatNestedSubqueriesLinear(t *testing.T) {
	for _, kind := range []string{"x = (%s)", "EXISTS (%s)", "x IN (%s)"} {
		q := "SELECT x FROM a WHERE x = 1"
		for i := 0; i < 40; i++ {
			q = "SELECT x FROM a WHERE " + fmt.Sprintf(kind, q)
		}
		p, _ := props(t, q)
		t0 := time.Now()
		for _, anonymous := range []bool{false, true} {
			plan.NewFormatter(p.Meta, p.Root, anonymous).Node(p.Root)
		}
		if d := time.Since(t0); d > time.Second {
			t.Errorf("%s depth 40: formatting took %v", kind, d)
		}
	}
}
