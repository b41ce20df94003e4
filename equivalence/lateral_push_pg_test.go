package equivalence_test

import (
	"context"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence"
)

const lateralDDL = `CREATE TABLE xy (c0 BIGINT NOT NULL, c1 BIGINT, c2 NUMERIC, c3 OID, PRIMARY KEY (c0));
CREATE TABLE ab (c0 BIGINT, c1 BIGINT, c2 BIGINT NOT NULL, c3 NUMERIC, c4 OID, PRIMARY KEY (c2));
CREATE TABLE uv (c0 BIGINT NOT NULL, c1 BIGINT, c2 NUMERIC, c3 OID, PRIMARY KEY (c0));`

// lateralRows hold duplicates, NULLs, outer rows alike but for their key
// and left-join rows without a partner: every "differs" pair below
// differs on them in PostgreSQL.
const lateralRows = `INSERT INTO xy (c0, c1) VALUES (0, 0), (1, 1), (2, NULL), (3, 5), (4, 1);
INSERT INTO ab (c0, c1, c2) VALUES (1, 1, 10), (1, 1, 11), (1, NULL, 12), (2, 7, 13), (NULL, 2, 14), (4, 3, 15);
INSERT INTO uv (c0, c1) VALUES (1, 1), (2, NULL), (5, 9);`

// TestLateralPushJudged judges inner LATERAL subqueries that
// planner/build/lateral_push.go plans (set operations, grouped
// aggregates, DISTINCT, a left join's nullable input reading the outer
// row) against other spellings, checks each pair's truth on PostgreSQL
// with lateralRows, and requires the judge's label: a pair PostgreSQL
// tells apart is never proved (the refuter, executing both plans, finds
// a counterexample), one it does not is never refuted, and the label
// given is want's where want is set.
func TestLateralPushJudged(t *testing.T) {
	ctx := context.Background()
	conn, s := pgLoaded(t, ctx, "CREATE SCHEMA lateral_judged; SET search_path TO lateral_judged;\n"+lateralDDL)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA lateral_rows"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		same bool
		want equivalence.Label // "": any label but the wrong one
		a, b string
	}{
		{true, "",
			"SELECT t0.c0, u.c1 FROM xy t0, LATERAL (SELECT ab.c1 FROM ab WHERE ab.c0 = t0.c0 UNION SELECT uv.c1 FROM uv WHERE uv.c0 = t0.c0) u",
			"SELECT t0.c0, u.c1 FROM xy t0, (SELECT c0 AS k, c1 FROM ab UNION SELECT c0, c1 FROM uv) u WHERE u.k = t0.c0"},
		{false, "not_equivalent",
			"SELECT t0.c0, u.c1 FROM xy t0, LATERAL (SELECT ab.c1 FROM ab WHERE ab.c0 = t0.c0 UNION SELECT uv.c1 FROM uv WHERE uv.c0 = t0.c0) u",
			"SELECT t0.c0, u.c1 FROM xy t0, LATERAL (SELECT ab.c1 FROM ab WHERE ab.c0 = t0.c0 UNION ALL SELECT uv.c1 FROM uv WHERE uv.c0 = t0.c0) u"},
		{true, "",
			"SELECT t0.c0, g.c1, g.n FROM xy t0, LATERAL (SELECT ab.c1, count(*) AS n FROM ab WHERE ab.c0 = t0.c0 GROUP BY ab.c1) g",
			"SELECT t0.c0, g.c1, g.n FROM xy t0, (SELECT c0, c1, count(*) AS n FROM ab GROUP BY c0, c1) g WHERE g.c0 = t0.c0"},
		{false, "not_equivalent",
			"SELECT t0.c0, g.c1, g.n FROM xy t0, LATERAL (SELECT ab.c1, count(*) AS n FROM ab WHERE ab.c0 = t0.c0 GROUP BY ab.c1) g",
			"SELECT t0.c0, g.c1, g.n FROM xy t0, LATERAL (SELECT ab.c1, count(ab.c1) AS n FROM ab WHERE ab.c0 = t0.c0 GROUP BY ab.c1) g"},
		{false, "not_equivalent",
			"SELECT t0.c0, g.c1, g.n FROM xy t0, LATERAL (SELECT ab.c1, count(*) AS n FROM ab WHERE ab.c0 = t0.c0 GROUP BY ab.c1) g",
			"SELECT t0.c0, g.c1, g.n FROM xy t0, LATERAL (SELECT ab.c1, count(*) AS n FROM ab WHERE ab.c0 >= t0.c0 GROUP BY ab.c1) g"},
		{false, "not_equivalent",
			"SELECT t0.c0, u.c1 FROM xy t0, LATERAL (SELECT ab.c1 FROM ab EXCEPT SELECT uv.c1 + t0.c1 FROM uv) u",
			"SELECT t0.c0, u.c1 FROM xy t0, LATERAL (SELECT ab.c1 FROM ab EXCEPT ALL SELECT uv.c1 + t0.c1 FROM uv) u"},
		{true, "equivalent",
			"SELECT t0.c0, u.c1 FROM xy t0, LATERAL (SELECT ab.c1 FROM ab EXCEPT SELECT uv.c1 + t0.c1 FROM uv) u",
			"SELECT t0.c0, u.c1 FROM xy t0 CROSS JOIN LATERAL (SELECT ab.c1 FROM ab EXCEPT SELECT t0.c1 + uv.c1 FROM uv) AS u"},
		{false, "not_equivalent",
			"SELECT t0.c0, t4.v FROM xy t0, LATERAL (SELECT t1.c0, t3.v FROM ab t1 LEFT JOIN (SELECT t2.c0, t2.c1 + t0.c0 AS v FROM uv t2) t3 ON t1.c0 = t3.c0) t4",
			"SELECT t0.c0, t4.v FROM xy t0, LATERAL (SELECT t1.c0, t3.v FROM ab t1 LEFT JOIN (SELECT t2.c0, t2.c1 + t0.c1 AS v FROM uv t2) t3 ON t1.c0 = t3.c0) t4"},
		{false, "not_equivalent",
			"SELECT t0.c0, t4.v FROM xy t0, LATERAL (SELECT t1.c0, t3.v FROM ab t1 LEFT JOIN (SELECT t2.c0, coalesce(t2.c1, t0.c0) AS v FROM uv t2) t3 ON t1.c0 = t3.c0) t4",
			"SELECT t0.c0, t4.v FROM xy t0, LATERAL (SELECT t1.c0, coalesce(t3.c1, t0.c0) AS v FROM ab t1 LEFT JOIN uv t3 ON t1.c0 = t3.c0) t4"},
		{true, "equivalent",
			"SELECT t0.c0, t4.v FROM xy t0, LATERAL (SELECT t1.c0, t3.v FROM ab t1 LEFT JOIN (SELECT t2.c0, t2.c1 + t0.c0 AS v FROM uv t2) t3 ON t1.c0 = t3.c0) t4",
			"SELECT t0.c0, t3.c1 + t0.c0 AS v FROM xy t0, ab t1 LEFT JOIN uv t3 ON t1.c0 = t3.c0"},
		{false, "not_equivalent",
			"SELECT t0.c0, d.v FROM xy t0, LATERAL (SELECT DISTINCT ab.c1 AS v FROM ab WHERE ab.c0 > t0.c0) d",
			"SELECT t0.c0, d.v FROM xy t0, LATERAL (SELECT ab.c1 AS v FROM ab WHERE ab.c0 > t0.c0) d"},
		{true, "",
			"SELECT t0.c0, d.v FROM xy t0, LATERAL (SELECT DISTINCT ab.c1 AS v FROM ab WHERE ab.c0 > t0.c0) d",
			"SELECT DISTINCT t0.c0, ab.c1 AS v FROM xy t0, ab WHERE ab.c0 > t0.c0"},
		{false, "unknown",
			"SELECT t0.c1, d.v FROM (SELECT c1 FROM xy) t0, LATERAL (SELECT DISTINCT ab.c1 AS v FROM ab WHERE ab.c0 > t0.c1) d",
			"SELECT DISTINCT t0.c1, ab.c1 AS v FROM xy t0, ab WHERE ab.c0 > t0.c1"},
		// LEFT LATERAL.
		{true, "",
			"SELECT t0.c0, g.c1, g.n FROM xy t0 LEFT JOIN LATERAL (SELECT ab.c1, count(*) AS n FROM ab WHERE ab.c0 = t0.c0 GROUP BY ab.c1) g ON true",
			"SELECT t0.c0, g.c1, g.n FROM xy t0 LEFT JOIN (SELECT c0, c1, count(*) AS n FROM ab GROUP BY c0, c1) g ON g.c0 = t0.c0"},
		{false, "not_equivalent",
			"SELECT t0.c0, g.c1, g.n FROM xy t0 LEFT JOIN LATERAL (SELECT ab.c1, count(*) AS n FROM ab WHERE ab.c0 = t0.c0 GROUP BY ab.c1) g ON true",
			"SELECT t0.c0, g.c1, g.n FROM xy t0, LATERAL (SELECT ab.c1, count(*) AS n FROM ab WHERE ab.c0 = t0.c0 GROUP BY ab.c1) g"},
		{false, "not_equivalent",
			"SELECT t0.c0, u.c1 FROM xy t0 LEFT JOIN LATERAL (SELECT ab.c1 FROM ab WHERE ab.c0 <= t0.c0 UNION SELECT t0.c1) u ON u.c1 >= 1",
			"SELECT t0.c0, u.c1 FROM xy t0 LEFT JOIN LATERAL (SELECT ab.c1 FROM ab WHERE ab.c0 <= t0.c0 UNION ALL SELECT t0.c1) u ON u.c1 >= 1"},
		// LIMIT per outer row.
		{false, "not_equivalent",
			"SELECT t0.c0, l.c2 FROM xy t0, LATERAL (SELECT ab.c2 FROM ab WHERE ab.c0 = t0.c0 ORDER BY ab.c2 LIMIT 2) l",
			"SELECT t0.c0, l.c2 FROM xy t0, LATERAL (SELECT ab.c2 FROM ab WHERE ab.c0 = t0.c0 ORDER BY ab.c2 LIMIT 1) l"},
		{true, "",
			"SELECT t0.c0, l.c2 FROM xy t0, LATERAL (SELECT ab.c2 FROM ab WHERE ab.c0 = t0.c0 ORDER BY ab.c2 LIMIT 2) l",
			"SELECT t0.c0, l.c2 FROM xy t0, (SELECT c0, c2, row_number() OVER (PARTITION BY c0 ORDER BY c2) AS rn FROM ab) l WHERE l.c0 = t0.c0 AND l.rn <= 2"},
	}
	for _, tc := range tests {
		differ := pgDiffer(t, conn, "SET LOCAL search_path TO lateral_rows;\n"+lateralDDL, lateralRows, tc.a, tc.b)
		if differ == tc.same {
			t.Errorf("PostgreSQL: differ = %v, want %v:\n%s\n%s", differ, !tc.same, tc.a, tc.b)
		}
		v, err := equivalence.Judge(ctx, s, tc.a, tc.b, equivalence.Options{})
		if err != nil {
			t.Errorf("%s: %v", tc.a, err)
			continue
		}
		switch {
		case tc.same && v.Label == equivalence.NotEquivalent, !tc.same && v.Label.Proved():
			t.Errorf("wrong label %s:\n%s\n%s", v.Label, tc.a, tc.b)
		case tc.want != "" && v.Label != tc.want:
			t.Errorf("label %s, want %s:\n%s\n%s", v.Label, tc.want, tc.a, tc.b)
		}
	}
}
