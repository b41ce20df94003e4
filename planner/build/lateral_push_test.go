package build

import (
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestLateralPush plans the inner LATERAL forms of lateral_push.go and
// lateral_window.go and refuses those whose push would not be exact (want
// ""): a LIMIT that is no constant, a scalar aggregate below a join, an
// outer input with alike rows under a grouping, DISTINCT, a window or a
// LIMIT, one without a NOT NULL key under a set operation or a LEFT
// LATERAL join, and a LEFT LATERAL column that is the outer row's own.
func TestLateralPush(t *testing.T) {
	s, err := catalog.LoadDDL(`CREATE TABLE xy (c0 BIGINT NOT NULL, c1 BIGINT, PRIMARY KEY (c0));
CREATE TABLE ab (c0 BIGINT, c1 BIGINT, c2 BIGINT NOT NULL, PRIMARY KEY (c2));
CREATE TABLE uv (c0 BIGINT NOT NULL, c1 BIGINT, PRIMARY KEY (c0));`, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ sql, want string }{
		// x ⋈ γ[g](t) ⇒ γ[x.., g](x ⋈ t)
		{"SELECT t0.c0, g.c0, g.s FROM xy t0, LATERAL (SELECT t1.c0, corr(t1.c1, t0.c0) AS s FROM ab t1 GROUP BY t1.c0) g",
			"aggregate group by (t1.c0, t1.c1, t2.c0), corr(t2.c1, t1.c0)\n        join inner (cross)\n          scan xy as t1\n          scan ab as t2"},
		// A grouping by the outer column alone is a reference too.
		{"SELECT t0.c0, g.m FROM xy t0, LATERAL (SELECT max(t1.c0) AS m FROM ab t1 GROUP BY t0.c1) g",
			"aggregate group by (t1.c0, t1.c1), max(t2.c0)"},
		// x ⋈ (t ∪ u) ⇒ x ⋈[x.k = k'] ((x' ⋈ t) ∪ (x'' ⋈ u))
		{"SELECT t0.c1, u.c1 FROM xy t0, LATERAL (SELECT t1.c1 FROM ab t1 UNION SELECT t2.c1 + t0.c0 FROM uv t2) u",
			"join inner on (t1.c0 = setop.c1)\n      scan xy as t1\n      setop union [t2.c0, t3.c1] [t4.c0, (t5.c1 + t4.c0)]"},
		{"SELECT t0.c1, u.c1 FROM xy t0, LATERAL (SELECT t1.c1 FROM ab t1 EXCEPT ALL SELECT t0.c1 FROM uv t2) u",
			"except all"},
		// δ and a join's second input moving first.
		{"SELECT t0.c1, d.v FROM xy t0, LATERAL (SELECT DISTINCT t1.c1 + t0.c1 AS v FROM ab t1) d", "distinct"},
		{"SELECT t0.c0, j.a FROM xy t0, LATERAL (SELECT t1.c0 AS a FROM ab t1 JOIN (SELECT t2.c0 FROM uv t2 WHERE t2.c1 = t0.c1) s ON s.c0 = t1.c0) j",
			"join inner on (t3.c0 = t2.c0)\n        project t1.c0, t1.c1, t3.c0\n          filter (t3.c1 = t1.c1)\n            join inner (cross)\n              scan xy as t1\n              scan uv as t3\n        scan ab as t2"},
		// The nullable input of a left join reading x: a moved item NULL on
		// NULLs stays as it is; one that may raise (t0.c1 * 2 overflows)
		// or is not NULL on NULLs stands under a CASE, on a NOT NULL column
		// of the input or an added marker.
		{"SELECT t0.c0, j.v FROM xy t0, LATERAL (SELECT t1.c0, t3.v FROM ab t1 LEFT JOIN (SELECT t2.c0, t2.c1 + t0.c0 AS v FROM uv t2) t3 ON t1.c0 = t3.c0) j",
			"project t1.c0, t1.c1, t3.c0, t3.c1, t3.c2, t2.c0, (t2.c1 + t1.c0)\n        join left on (t3.c0 = t2.c0)"},
		{"SELECT t0.c0, j.v FROM xy t0, LATERAL (SELECT t1.c0, t3.v FROM ab t1 LEFT JOIN (SELECT t2.c0, t2.c1 + t0.c1 * 2 AS v FROM uv t2) t3 ON t3.v > t1.c1) j",
			"t2.c0, case when (t2.c0 is not null) then (t2.c1 + (t1.c1 * 2)) end\n        join left on ((t2.c1 + (t1.c1 * 2)) > t3.c1)"},
		{"SELECT t0.c0, j.v FROM xy t0, LATERAL (SELECT t1.c0, t3.v FROM ab t1 LEFT JOIN (SELECT t2.c1, coalesce(t2.c1, t0.c0) AS v FROM (SELECT c1 FROM uv) t2) t3 ON true) j",
			"case when nullext(true) then coalesce(t2.c1, t1.c0) end\n        join left on true"},
		// LEFT LATERAL: pushed into a copy of x, joined back on its key.
		{"SELECT t0.c1, u.c1 FROM xy t0 LEFT JOIN LATERAL (SELECT t1.c1 FROM ab t1 UNION SELECT t0.c1) u ON u.c1 > 0",
			"join left on (t1.c0 = t2.c0), (setop.c2 > 0)\n      scan xy as t1"},
		{"SELECT t0.c0, g.n FROM xy t0 LEFT JOIN LATERAL (SELECT t1.c1, count(*) AS n FROM ab t1 WHERE t1.c0 = t0.c0 GROUP BY t1.c1) g ON true",
			"join left on (t1.c0 = t3.c0)\n      scan xy as t1\n      project t3.c0, t3.c1, t2.c1, count(*)\n        aggregate group by (t3.c0, t3.c1, t2.c1), count(*)"},
		// Refused.
		{"SELECT t0.c0, l.c1 FROM xy t0, LATERAL (SELECT t1.c1 FROM ab t1 WHERE t1.c0 > t0.c0 ORDER BY t1.c1 LIMIT 2 OFFSET 1) l",
			"filter (row_number() over (partition by t1.c0, t1.c1 order by t2.c1) > 1), (row_number() over (partition by t1.c0, t1.c1 order by t2.c1) <= 3)"},
		{"SELECT t0.c0, l.c1, l.r FROM xy t0, LATERAL (SELECT t1.c1, rank() OVER (ORDER BY t1.c0 + t0.c1) AS r FROM ab t1) l",
			"window rank() over (partition by t1.c0, t1.c1 order by (t2.c0 + t1.c1))"},
		{"SELECT t0.c0, l.c1 FROM xy t0, LATERAL (SELECT t1.c1 FROM ab t1 WHERE t1.c0 > t0.c0 ORDER BY t1.c1 LIMIT t0.c1) l", ""},
		{"SELECT t0.c1, l.c1 FROM (SELECT c1 FROM xy) t0, LATERAL (SELECT t1.c1 FROM ab t1 WHERE t1.c0 > t0.c1 LIMIT 2) l", ""},
		{"SELECT t0.c1, l.r FROM (SELECT c1 FROM xy) t0, LATERAL (SELECT rank() OVER (ORDER BY t1.c0 + t0.c1) AS r FROM ab t1) l", ""},
		{"SELECT t0.c0, j.n FROM xy t0, LATERAL (SELECT t1.c0, s.n FROM ab t1, (SELECT count(*) AS n FROM uv t2 WHERE t2.c1 = t0.c1) s) j", ""},
		{"SELECT t0.c1, g.s FROM (SELECT c1 FROM xy) t0, LATERAL (SELECT t1.c0, sum(t1.c1) AS s FROM ab t1 WHERE t1.c1 = t0.c1 GROUP BY t1.c0) g", ""},
		{"SELECT t0.c1, d.v FROM (SELECT c1 FROM xy) t0, LATERAL (SELECT DISTINCT t1.c1 + t0.c1 AS v FROM ab t1) d", ""},
		{"SELECT t0.c1, u.c1 FROM (SELECT DISTINCT c1 FROM xy) t0, LATERAL (SELECT t1.c1 FROM ab t1 UNION SELECT t0.c1) u", ""},
		{"SELECT t0.c0, j.v FROM xy t0, LATERAL (SELECT t1.c0, t3.v FROM ab t1 LEFT JOIN (SELECT t2.c0, t2.c1 AS v FROM uv t2 WHERE t2.c1 > t0.c1) t3 ON true) j", ""},
		{"SELECT t0.c1, u.c1 FROM (SELECT DISTINCT c1 FROM xy) t0 LEFT JOIN LATERAL (SELECT t1.c1 FROM ab t1 UNION SELECT t0.c1) u ON true", ""},
		{"SELECT t0.c1, u.c0 FROM xy t0 LEFT JOIN LATERAL (SELECT t0.c0, count(*) AS n FROM ab t1 WHERE t1.c1 = t0.c1 GROUP BY t1.c0) u ON true", ""},
	}
	for _, tc := range tests {
		p, err := Build(s, tc.sql)
		if tc.want == "" {
			if err == nil {
				t.Errorf("%s: planned, want refused:\n%s", tc.sql, p.Explain())
			} else if !strings.Contains(err.Error(), "LATERAL") {
				t.Errorf("%s: refused for another reason: %v", tc.sql, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		if got := p.Explain(); !strings.Contains(got, tc.want) {
			t.Errorf("%s: plan lacks %q:\n%s", tc.sql, tc.want, got)
		}
	}
}
