package exec_test

import (
	"context"
	"testing"

	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// TestLimitUnderCount: a LIMIT that cuts through unordered rows leaves
// the result undetermined, except where only the number of rows it
// keeps reaches the result (count(*) over the limited subquery, as
// Django's count() of a sliced queryset writes it).
func TestLimitUnderCount(t *testing.T) {
	ctx := context.Background()
	s, err := catalog.LoadDDL("CREATE TABLE t (id integer PRIMARY KEY, v integer);", catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	db := exec.Database{"t": {{exec.Int(1), exec.Int(0)}, {exec.Int(2), exec.Null}, {exec.Int(3), exec.Int(5)}}}
	tests := []struct {
		sql    string
		nondet bool
		want   string // the first value, when determined
	}{
		{"SELECT count(*) FROM (SELECT id FROM t LIMIT 2) s", false, "2"},
		{"SELECT count(*) + 1 FROM (SELECT id, 7 FROM t LIMIT 2) s", false, "3"},
		{"SELECT count(*) FROM (SELECT id FROM t WHERE id > 1 LIMIT 1) s", false, "1"},
		{"SELECT count(*) FROM (SELECT id FROM t LIMIT 5) s", false, "3"},
		{"SELECT sum(v) FROM (SELECT v FROM t LIMIT 2) s", true, ""},
		{"SELECT count(v) FROM (SELECT v FROM t LIMIT 2) s", true, ""},
		{"SELECT count(DISTINCT id) FROM (SELECT id FROM t LIMIT 2) s", true, ""},
		{"SELECT v, count(*) FROM (SELECT v FROM t LIMIT 2) s GROUP BY v", true, ""},
		{"SELECT count(*) FROM (SELECT id FROM t LIMIT 2) s WHERE id > 1", true, ""},
	}
	for _, tc := range tests {
		p, err := planner.Plan(ctx, s, tc.sql, planner.Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		r, err := exec.Execute(ctx, p, db)
		if err != nil {
			if tc.nondet {
				continue // refused or an error: not a determined answer either
			}
			t.Fatalf("%s: %v", tc.sql, err)
		}
		if r.Nondeterministic != tc.nondet {
			t.Errorf("%s: nondeterministic %v, want %v", tc.sql, r.Nondeterministic, tc.nondet)
			continue
		}
		if !tc.nondet && (len(r.Rows) != 1 || r.Rows[0][0].String() != tc.want) {
			t.Errorf("%s: %v, want %s", tc.sql, r.Rows, tc.want)
		}
	}
}
