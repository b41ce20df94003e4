package exec_test

import (
	"context"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// TestScratchSharedAcrossExecutions runs queries of every operator one
// after another with one Scratch, twice over, and checks each result
// against a run without one, after all of them ran: an execution given
// the Scratch must compute what one without does, and must not change
// what an earlier one returned.
func TestScratchSharedAcrossExecutions(t *testing.T) {
	s, err := catalog.LoadDDL(unitDDL, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	db := unitDB(t)
	queries := []string{
		"SELECT id FROM t WHERE a = 10",
		"SELECT a + 1, n * 2 FROM t",
		"SELECT t.id, u.id FROM t JOIN u ON t.id = u.t_id ORDER BY u.id",
		"SELECT t.id, u.b FROM t LEFT JOIN u ON t.id = u.t_id",
		"SELECT t.id, u.b FROM t FULL JOIN u ON t.id = u.b",
		"SELECT a, count(*), sum(n) FROM t GROUP BY a",
		"SELECT DISTINCT a FROM t ORDER BY a",
		"SELECT id FROM t ORDER BY a DESC, id LIMIT 3",
		"SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.t_id = t.id AND u.b > 4)",
		"SELECT id, (SELECT max(b) FROM u WHERE u.t_id = t.id) FROM t",
		"SELECT a FROM t UNION ALL SELECT b FROM u",
		"SELECT id, row_number() OVER (PARTITION BY a ORDER BY id) FROM t",
		"SELECT * FROM (VALUES (1, 'x'), (2, 'y')) AS v (k, w)",
		"SELECT t1.id, t2.id, u.id FROM t t1, t t2, u WHERE t1.id = u.t_id AND t2.a = t1.a",
	}
	show := func(r *exec.Result) string {
		rows := make([]string, len(r.Rows))
		for i, row := range r.Rows {
			vals := make([]string, len(row))
			for j, v := range row {
				vals[j] = v.String()
			}
			rows[i] = strings.Join(vals, ",")
		}
		return strings.Join(rows, ";")
	}
	ctx := context.Background()
	scratch := new(exec.Scratch)
	var want []string
	var got []*exec.Result
	for round := range 2 {
		for _, q := range queries {
			p, err := planner.Plan(ctx, s, q, planner.Options{})
			if err != nil {
				t.Fatalf("plan %q: %v", q, err)
			}
			if round == 0 {
				r, err := exec.Execute(ctx, p, db)
				if err != nil {
					t.Fatalf("%q: %v", q, err)
				}
				want = append(want, show(r))
			}
			r, err := exec.ExecuteWith(ctx, p, db, exec.Options{Scratch: scratch})
			if err != nil {
				t.Fatalf("%q with a Scratch: %v", q, err)
			}
			got = append(got, r)
		}
	}
	for i, r := range got {
		if g, w := show(r), want[i%len(queries)]; g != w {
			t.Errorf("%q with a Scratch (run %d): %s, want %s", queries[i%len(queries)], i, g, w)
		}
	}
}
