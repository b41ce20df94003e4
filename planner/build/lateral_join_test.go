package build

import (
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestLateralJoinChainsAndValues plans the LATERAL forms of
// lateral_join.go: the outer input joins a join chain's leftmost input,
// a VALUES list becomes its row numbers with a CASE per column; and
// refuses the forms they do not cover (want "").
func TestLateralJoinChainsAndValues(t *testing.T) {
	s := schema(t, catalog.Postgres)
	tests := []struct{ sql, want string }{
		{"SELECT d.name, x.v FROM dogs d, LATERAL (VALUES (d.age), (d.age + 1)) x(v)",
			"case when (values.c1 = 1) then t1.age when (values.c1 = 2) then (t1.age + 1) end"},
		{"SELECT x.v FROM dogs d JOIN LATERAL (SELECT v.v FROM (VALUES (d.age), (2)) v(v) WHERE v.v > 1) x ON x.v < 10",
			"values (1), (2)"},
		{"SELECT x.name FROM owners o, LATERAL (SELECT d.name FROM dogs d LEFT JOIN treatments t ON t.cost > o.owner_id) x",
			"join left on (t3.cost > t2.owner_id)\n      join inner (cross)\n        scan owners as t2\n        scan dogs as t1"},
		{"SELECT x.tid FROM owners o, LATERAL (SELECT t.treatment_id AS tid FROM dogs d JOIN treatments t ON d.owner_id = o.owner_id LEFT JOIN professionals p ON p.city = o.city) x",
			"join left on (t3.city = t2.city)\n      join inner on (t4.owner_id = t2.owner_id)\n        join inner (cross)\n          scan owners as t2"},
		// The outer row in a projection of a join's nullable input moves
		// above the join (lateral_push.go).
		{"SELECT x.name FROM owners o, LATERAL (SELECT d.name FROM dogs d LEFT JOIN (SELECT t.cost + o.owner_id AS c FROM treatments t) t ON true) x",
			"join left on true\n          join inner (cross)\n            scan owners as t2\n            scan dogs as t1"},
		// Under a LEFT LATERAL join, a copy of the outer input joined back
		// on its key (lateral_push.go).
		{"SELECT x.v FROM dogs d LEFT JOIN LATERAL (VALUES (d.age), (2)) x(v) ON true",
			"join left on (t2.dog_id = t1.dog_id)"},
		{"SELECT x.name FROM owners o LEFT JOIN LATERAL (SELECT d.name FROM dogs d LEFT JOIN treatments t ON t.cost > o.owner_id) x ON true",
			"join left on (t2.owner_id = t3.owner_id)"},
		// The outer row inside a full join: refused.
		{"SELECT x.name FROM owners o, LATERAL (SELECT d.name FROM dogs d FULL JOIN treatments t ON t.cost > o.owner_id) x", ""},
	}
	for _, tc := range tests {
		p, err := Build(s, tc.sql)
		if tc.want == "" {
			if err == nil {
				t.Errorf("%s: planned, want refused:\n%s", tc.sql, p.Explain())
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		if got := p.Canonical(); !strings.Contains(got, tc.want) {
			t.Errorf("%s: plan lacks %q:\n%s", tc.sql, tc.want, got)
		}
	}
}
