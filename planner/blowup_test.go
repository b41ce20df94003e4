package planner_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Query generators for inputs that once made planning blow up (issue 9).

func nestedScalar(d int) string {
	q := "SELECT age FROM dogs WHERE age = 1"
	for i := 0; i < d; i++ {
		q = "SELECT age FROM dogs WHERE age = (" + q + ")"
	}
	return q
}

func nestedExists(d int) string {
	q := "SELECT 1 FROM dogs WHERE age = 1"
	for i := 0; i < d; i++ {
		q = "SELECT 1 FROM dogs WHERE EXISTS (" + q + ")"
	}
	return "SELECT dog_id FROM dogs WHERE EXISTS (" + q + ")"
}

func nestedIn(d int) string {
	q := "SELECT age FROM dogs WHERE age = 1"
	for i := 0; i < d; i++ {
		q = "SELECT age FROM dogs WHERE age IN (" + q + ")"
	}
	return q
}

func nestedIsDistinct(d int) string {
	e := "age"
	for i := 0; i < d; i++ {
		e = fmt.Sprintf("(%s IS DISTINCT FROM %d)", e, i%2)
	}
	return "SELECT dog_id FROM dogs WHERE " + e
}

func cteFanout(n int) string {
	var b strings.Builder
	b.WriteString("WITH c0 AS (SELECT dog_id, age FROM dogs)")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, ", c%d AS (SELECT a.dog_id, b.age FROM c%d a JOIN c%d b ON a.dog_id = b.dog_id)", i, i-1, i-1)
	}
	fmt.Fprintf(&b, " SELECT dog_id FROM c%d", n-1)
	return b.String()
}

func setOpChain(op string, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf("SELECT dog_id FROM dogs WHERE age = %d", i)
	}
	return strings.Join(parts, " "+op+" ")
}

func inList(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprint(i)
	}
	return "SELECT dog_id FROM dogs WHERE age IN (" + strings.Join(items, ",") + ")"
}

func orChain(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf("age = %d", i)
	}
	return "SELECT dog_id FROM dogs WHERE " + strings.Join(items, " OR ")
}

func andChain(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf("age <> %d", i)
	}
	return "SELECT dog_id FROM dogs WHERE " + strings.Join(items, " AND ")
}

func rowIn(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf("(%d,%d)", i, i+1)
	}
	return "SELECT dog_id FROM dogs WHERE (age, owner_id) IN (" + strings.Join(items, ",") + ")"
}

type blowupCase struct {
	name  string
	sql   string
	limit time.Duration
	want  error // nil: plans
}

// blowupCases are issue 9's reproducers, with what each took before.
func blowupCases() []blowupCase {
	return []blowupCase{
		{"nested-scalar-16", nestedScalar(16), 2 * time.Second, nil},           // 4.1 s
		{"nested-exists-16", nestedExists(16), 2 * time.Second, nil},           // fast here; slow in the judge
		{"nested-in-30", nestedIn(30), 2 * time.Second, nil},                   // > 60 s
		{"is-distinct-30", nestedIsDistinct(30), 2 * time.Second, nil},         // 18 levels: 9 s
		{"cte-fanout-15", cteFanout(15), 2 * time.Second, planner.ErrTooLarge}, // > 60 s
		{"except-400", setOpChain("EXCEPT", 400), 2 * time.Second, nil},
		{"union-2000", setOpChain("UNION", 2000), 2 * time.Second, nil},
		{"in-list-100000", inList(100000), 2 * time.Second, nil},
		{"or-10000", orChain(10000), 2 * time.Second, nil},
		{"and-10000", andChain(10000), 2 * time.Second, nil},
		{"row-in-20000", rowIn(20000), 2 * time.Second, nil}, // 19 s
		{"nul-byte", "SELECT dog_id FROM dogs\x00 WHERE junk", time.Second, planner.ErrNULByte},
	}
}

// TestBlowupsPlanQuickly plans each reproducer within a generous bound far
// below what it took before (seconds to minutes), or refuses it clearly.
func TestBlowupsPlanQuickly(t *testing.T) {
	s := exampleSchema(t, catalog.Postgres)
	for _, c := range blowupCases() {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			t0 := time.Now()
			p, err := planner.Plan(ctx, s, c.sql, planner.Options{})
			if d := time.Since(t0); d > c.limit {
				t.Errorf("took %v, want under %v", d, c.limit)
			}
			switch {
			case c.want == nil && err != nil:
				t.Errorf("plan: %v", err)
			case c.want != nil && !errors.Is(err, c.want):
				t.Errorf("got %v, want %v", err, c.want)
			case err == nil:
				if err := plan.CheckDefinitions(p); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// TestPlanStopsAtDeadline: planning a large query returns the context's
// error within a few milliseconds of its deadline, or of the end of the
// parse when the deadline falls inside it (pg_query's parser, C code,
// cannot be stopped; its time is measured on the same text first).
func TestPlanStopsAtDeadline(t *testing.T) {
	s := exampleSchema(t, catalog.Postgres)
	for _, sql := range []string{orChain(100000), inList(200000), rowIn(50000)} {
		t0 := time.Now()
		if _, err := pg.Parse(sql); err != nil {
			t.Fatal(err)
		}
		parse := time.Since(t0)
		for _, budget := range []time.Duration{5 * time.Millisecond, 50 * time.Millisecond} {
			ctx, cancel := context.WithTimeout(context.Background(), budget)
			t0 := time.Now()
			_, err := planner.Plan(ctx, s, sql, planner.Options{})
			d := time.Since(t0)
			cancel()
			if err == nil {
				continue // finished within budget: nothing to check
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%.30s… in %v: got %v", sql, budget, err)
			}
			// Generous: the machine is shared; the check runs every 256 steps.
			if d > max(budget, 2*parse)+budget/10+50*time.Millisecond {
				t.Errorf("%.30s… in %v: returned after %v", sql, budget, d)
			}
		}
	}
}

func benchPlan(b *testing.B, sql string) {
	s := exampleSchema(b, catalog.Postgres)
	b.SetBytes(int64(len(sql)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := planner.Plan(context.Background(), s, sql, planner.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// Large lists must plan in time near-linear in their length (issue 9).
func BenchmarkPlanLargeIN(b *testing.B)    { benchPlan(b, inList(100000)) }
func BenchmarkPlanLargeOR(b *testing.B)    { benchPlan(b, orChain(10000)) }
func BenchmarkPlanLargeAND(b *testing.B)   { benchPlan(b, andChain(10000)) }
func BenchmarkPlanRowIN(b *testing.B)      { benchPlan(b, rowIn(20000)) }
func BenchmarkPlanNestedIN30(b *testing.B) { benchPlan(b, nestedIn(30)) }
