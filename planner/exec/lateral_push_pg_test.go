package exec_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/pgequiv/pgequiv/internal/shareddata"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// lateralPushQueries are inner LATERAL subqueries that are neither one
// row nor select-project-join (planner/build/lateral_push.go): grouped
// aggregates, DISTINCT and set operations reading the outer row, and
// joins whose non-first input reads it. Every one must plan.
var lateralPushQueries = []string{
	// CockroachDB norm 324, 327, 328, 331, 332 as written.
	"SELECT t0.c0, t0.c1, t2.c0 AS c0_2, t2.AGG0 FROM xy AS t0, LATERAL (SELECT t1.c0, CORR(t1.c1, t0.c0) AS AGG0 FROM ab AS t1 GROUP BY t1.c0) AS t2 WHERE (t2.c0 = t0.c0)",
	"SELECT t0.c0, t0.c1, t3.c0 AS c0_2, t3.c1 AS c1_2 FROM xy AS t0, LATERAL (SELECT t1.c0, t1.c1 FROM ab AS t1 UNION SELECT t2.c0, t2.c1 + t0.c0 AS C1 FROM uv AS t2) AS t3 WHERE (t3.c0 = t0.c0)",
	"SELECT t0.c0, t0.c1, t3.c0 AS c0_2, t3.C1 AS C1_2 FROM xy AS t0, LATERAL (SELECT t1.c0, t1.c1 + t0.c0 AS C1 FROM ab AS t1 UNION SELECT t2.c0, t2.c1 + t0.c0 AS C1 FROM uv AS t2) AS t3 WHERE (t3.c0 = t0.c0)",
	"SELECT t0.c0, t0.c1, t3.c0 AS c0_2, t3.c1 AS c1_2 FROM xy AS t0, LATERAL (SELECT t1.c0, t1.c1 FROM ab AS t1 EXCEPT SELECT t2.c0, t2.c1 + t0.c0 AS C1 FROM uv AS t2) AS t3 WHERE (t3.c0 = t0.c0)",
	"SELECT t0.c0, t0.c1, t3.c0 AS c0_2, t3.C1 AS C1_2 FROM xy AS t0, LATERAL (SELECT t1.c0, t1.c1 + t0.c0 AS C1 FROM ab AS t1 EXCEPT SELECT t2.c0, t2.c1 + t0.c0 AS C1 FROM uv AS t2) AS t3 WHERE (t3.c0 = t0.c0)",
	// Without the outer filter: every outer row meets every set.
	"SELECT t0.c0, t3.c0, t3.c1 FROM xy t0, LATERAL (SELECT t1.c0, t1.c1 FROM ab t1 WHERE t1.c1 > t0.c1 UNION ALL SELECT t2.c0, t2.c1 FROM uv t2 WHERE t2.c0 <> t0.c0) t3",
	"SELECT t0.c0, t3.c1 FROM xy t0, LATERAL (SELECT t1.c1 FROM ab t1 INTERSECT ALL SELECT t2.c1 - t0.c1 FROM uv t2) t3",
	"SELECT t0.c0, t3.c1 FROM xy t0, LATERAL (SELECT t1.c1 FROM ab t1 INTERSECT SELECT t0.c1 FROM uv t2 WHERE t2.c0 > t0.c0) t3",
	"SELECT t0.c0, t3.c1 FROM xy t0, LATERAL (SELECT t1.c1 % 3 AS c1 FROM ab t1 EXCEPT ALL SELECT t2.c1 + t0.c0 FROM uv t2) t3",
	// Grouped aggregates and DISTINCT reading the outer row.
	"SELECT t0.c0, g.k, g.n, g.s FROM xy t0, LATERAL (SELECT t1.c1 % 2 AS k, count(*) AS n, sum(t1.c0 + t0.c1) AS s FROM ab t1 WHERE t1.c0 <= t0.c0 GROUP BY t1.c1 % 2 HAVING count(*) > t0.c0 % 2) g",
	"SELECT t0.c0, g.c1, g.m FROM xy t0 JOIN LATERAL (SELECT t1.c1, max(t1.c0) AS m FROM ab t1 GROUP BY t1.c1, t0.c1) g ON g.m > t0.c0",
	"SELECT t0.c0, d.v FROM xy t0, LATERAL (SELECT DISTINCT t1.c1 + t0.c1 AS v FROM ab t1) d",
	// A join whose second input reads the outer row moves it first.
	"SELECT t0.c0, j.a, j.b FROM xy t0, LATERAL (SELECT t1.c0 AS a, s.c0 AS b FROM ab t1 JOIN (SELECT t2.c0 FROM uv t2 WHERE t2.c1 = t0.c1) s ON s.c0 = t1.c0) j",
	// CockroachDB norm 318, 319: the nullable input of a left join reads
	// the outer row; then a moved item read by the join condition, and
	// one that is not NULL on NULLs, over an input with no NOT NULL column.
	"SELECT t0.c0, t0.c1, t4.c0 AS c0_2, t4.c1 AS c1_2, t4.c0_2 AS c0_2_2, t4.C1_2 AS C1_2_2 FROM xy AS t0, LATERAL (SELECT t1.c0, t1.c1, t3.c0 AS c0_2, t3.C1 AS C1_2 FROM ab AS t1 LEFT JOIN (SELECT t2.c0, t2.c1 + t0.c0 AS C1 FROM uv AS t2) AS t3 ON (t1.c0 = t3.c0)) AS t4 WHERE (t4.c0 = t0.c0)",
	"SELECT t0.c0, t0.c1, t4.c0 AS c0_2, t4.c1 AS c1_2, t4.C2 AS C2_2, t4.c0_2 AS c0_2_2, t4.C1_2 AS C1_2_2 FROM xy AS t0, LATERAL (SELECT t1.c0, t1.c1, t1.c1 + t0.c0 AS C2, t3.c0 AS c0_2, t3.C1 AS C1_2 FROM ab AS t1 LEFT JOIN (SELECT t2.c0, t2.c1 + t0.c0 AS C1 FROM uv AS t2) AS t3 ON (t1.c0 = t3.c0)) AS t4 WHERE (t4.c0 = t0.c0)",
	"SELECT t0.c0, t4.a, t4.b FROM xy t0, LATERAL (SELECT t1.c0 AS a, t3.v AS b FROM ab t1 LEFT JOIN (SELECT t2.c0, t2.c1 - t0.c1 AS v FROM uv t2) t3 ON t3.v > t1.c1) t4",
	"SELECT t0.c0, t4.a, t4.b, t4.w FROM xy t0, LATERAL (SELECT t1.c0 AS a, t3.v AS b, t3.w FROM ab t1 LEFT JOIN (SELECT t2.c1, coalesce(t2.c1, t0.c0) AS v, t0.c1 IS NULL AS w FROM (SELECT c1 FROM uv) t2) t3 ON t3.c1 = t1.c1) t4",
	// LEFT LATERAL joins: a copy of the outer input joined back on its key.
	"SELECT t0.c0, g.c1, g.n FROM xy t0 LEFT JOIN LATERAL (SELECT t1.c1, count(*) AS n FROM ab t1 WHERE t1.c0 = t0.c0 GROUP BY t1.c1) g ON g.n > 1",
	"SELECT t0.c0, u.c1 FROM xy t0 LEFT JOIN LATERAL (SELECT t1.c1 FROM ab t1 WHERE t1.c0 < t0.c0 EXCEPT SELECT t2.c1 + t0.c1 FROM uv t2) u ON u.c1 <> t0.c1",
	"SELECT t0.c0, v.x FROM xy t0 LEFT JOIN LATERAL (VALUES (t0.c1), (t0.c0 + 1)) v(x) ON v.x > 2",
	"SELECT t0.c0, d.v FROM xy t0 LEFT JOIN LATERAL (SELECT DISTINCT t1.c1 + t0.c1 AS v FROM ab t1 WHERE t1.c0 = t0.c0) d ON true",
	// Windows and LIMITs: partitioned by the outer row.
	"SELECT t0.c0, l.c1, l.c2 FROM xy t0, LATERAL (SELECT t1.c1, t1.c2 FROM ab t1 WHERE t1.c0 >= t0.c0 ORDER BY t1.c2 DESC LIMIT 2) l",
	"SELECT t0.c0, l.c1, l.c2 FROM xy t0, LATERAL (SELECT t1.c1, t1.c2 FROM ab t1 WHERE t1.c1 <> t0.c1 ORDER BY t1.c2 LIMIT 1) l",
	"SELECT t0.c0, l.c2 FROM xy t0 LEFT JOIN LATERAL (SELECT t1.c2 FROM ab t1 WHERE t1.c0 <= t0.c0 ORDER BY t1.c2 LIMIT 3 OFFSET 1) l ON true",
	"SELECT t0.c0, l.c1 FROM xy t0, LATERAL (SELECT t1.c1 FROM ab t1 ORDER BY t1.c1 + t0.c1 NULLS FIRST, t1.c2 LIMIT 2) l",
	"SELECT t0.c0, l.c2, l.r, l.s FROM xy t0, LATERAL (SELECT t1.c2, rank() OVER (ORDER BY t1.c1) AS r, sum(t1.c1 + t0.c1) OVER (PARTITION BY t1.c0) AS s FROM ab t1) l",
	"SELECT t0.c0, l.c2, l.n FROM xy t0 LEFT JOIN LATERAL (SELECT t1.c2, row_number() OVER (ORDER BY t1.c2 DESC) AS n FROM ab t1 WHERE t1.c0 = t0.c0) l ON l.n < 3",
	// Nested: a set operation inside an aggregate.
	"SELECT t0.c0, g.n FROM xy t0, LATERAL (SELECT u.c0, count(*) AS n FROM (SELECT t1.c0 FROM ab t1 UNION ALL SELECT t2.c0 + t0.c0 FROM uv t2) u GROUP BY u.c0) g",
}

const lateralPushDDL = `CREATE TABLE xy (c0 BIGINT NOT NULL, c1 BIGINT, c2 NUMERIC, c3 OID, PRIMARY KEY (c0));
CREATE TABLE ab (c0 BIGINT, c1 BIGINT, c2 BIGINT NOT NULL, c3 NUMERIC, c4 OID, PRIMARY KEY (c2));
CREATE TABLE uv (c0 BIGINT NOT NULL, c1 BIGINT, c2 NUMERIC, c3 OID, PRIMARY KEY (c0));`

// TestLateralPushDifferential runs lateralPushQueries in the executor
// and in a real PostgreSQL on random databases and requires the same
// bags.
func TestLateralPushDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx := context.Background()
	schema, err := catalog.LoadDDL(lateralPushDDL, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range lateralPushQueries {
		if _, err := planner.Plan(ctx, schema, sql, planner.Options{}); err != nil {
			t.Errorf("%s: %v", sql, err)
		}
	}
	conn := pgConn(t, ctx, lateralPushDDL)
	differential(t, conn, lateralPushDDL, lateralPushQueries, 12)
}

// TestLateralPushSuitePairs checks that the CockroachDB pairs whose
// references take the push plan on both sides.
func TestLateralPushSuitePairs(t *testing.T) {
	shared := shareddata.Path(t, ".") + "/"
	ddl, err := os.ReadFile(shared + "data/provers/schemas/crdb_ab_uv_xy_669250.sql")
	if err != nil {
		t.Skipf("shared data: %v", err)
	}
	schema, err := catalog.LoadDDL(string(ddl), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range lateralPushQueries[1:5] {
		if _, err := planner.Plan(context.Background(), schema, sql, planner.Options{}); err != nil {
			t.Errorf("%s: %v", sql, err)
		}
	}
}

// TestArrayAggSubscriptNotExecuted checks that (array_agg(x))[i], which
// the planner reads as an opaque subscript of an order-sensitive
// aggregate, is refused by the executor rather than given a value: which
// x comes first is PostgreSQL's row order.
func TestArrayAggSubscriptNotExecuted(t *testing.T) {
	ctx := context.Background()
	schema, err := catalog.LoadDDL(lateralPushDDL, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	db := exec.Database{"xy": {{exec.Int(1), exec.Int(2), exec.Null, exec.Null}, {exec.Int(2), exec.Int(3), exec.Null, exec.Null}}}
	for _, sql := range []string{
		"SELECT (ARRAY_AGG(c1))[1] FROM xy",
		"SELECT c0, (ARRAY_AGG(c1))[2] FROM xy GROUP BY c0",
	} {
		p, err := planner.Plan(ctx, schema, sql, planner.Options{})
		if err != nil {
			t.Errorf("%s: %v", sql, err)
			continue
		}
		if res, err := exec.Execute(ctx, p, db); !errors.Is(err, exec.ErrCannotExecute) {
			t.Errorf("%s: executed (%v, %v), want refused", sql, res, err)
		}
	}
}
