package build_test

import (
	"database/sql"
	"os/exec"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // the real engine the sweep compares with

	"github.com/pgequiv/pgequiv/planner/build"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// fidelityDDL is the sweep's schema, on the real engine and in the
// catalog (fidelitySchema).
const fidelityDDL = `CREATE TABLE t (a INTEGER, b TEXT); CREATE TABLE u (a INTEGER, c INTEGER);`

func fidelitySchema(t *testing.T) *catalog.Schema {
	t.Helper()
	col := func(name string, typ catalog.Type, sqlType string, ord int) catalog.Column {
		return catalog.Column{Name: name, Type: typ, TypeSQL: sqlType, Ordinal: ord}
	}
	s, err := catalog.NewSchema(catalog.SQLite, []*catalog.Table{
		{Name: "t", Columns: []catalog.Column{col("a", catalog.Int, "INTEGER", 0), col("b", catalog.Text, "TEXT", 1)}},
		{Name: "u", Columns: []catalog.Column{col("a", catalog.Int, "INTEGER", 0), col("c", catalog.Int, "INTEGER", 1)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fidelityCases: each construct with what SQLite 3.40 (the issue's
// engine; the sqlite3 CLI here) does with it. ok: SQLite prepares it.
// Where the linked modernc SQLite is newer and accepts more, newer says
// so and the sweep accepts either answer from the engine.
var fidelityCases = []struct {
	name, sql string
	ok        bool
	newer     bool // accepted by SQLite versions after 3.40 only
}{
	{"plain", "SELECT a FROM t", true, false},
	{"union", "SELECT a FROM t UNION SELECT a FROM u", true, false},
	{"paren-union-left", "(SELECT a FROM t) UNION SELECT a FROM u", false, false},
	{"paren-union-right", "SELECT a FROM t UNION (SELECT a FROM u)", false, false},
	{"paren-union-all-right", "SELECT a FROM t UNION ALL (SELECT a FROM u)", false, false},
	{"paren-except-right", "SELECT a FROM t EXCEPT (SELECT a FROM u)", false, false},
	{"paren-statement", "(SELECT a FROM t)", false, false},
	{"paren-in-cte-body", "WITH x AS ((SELECT a FROM t) UNION SELECT a FROM u) SELECT * FROM x", false, false},
	{"paren-in-list-union", "SELECT a FROM t WHERE a IN ((SELECT a FROM u) UNION SELECT 1)", false, false},
	{"paren-after-cte", "WITH x AS (SELECT a FROM t) (SELECT * FROM x)", false, false},
	{"from-subquery-then-union", "SELECT * FROM (SELECT a FROM t) UNION SELECT a FROM u", true, false},
	{"scalar-subquery-then-union", "SELECT (SELECT 1) UNION SELECT 2", true, false},
	{"in-subquery-then-union", "SELECT a FROM t WHERE a IN (SELECT a FROM u) UNION SELECT 2", true, false},
	{"double-paren-scalar", "SELECT ((SELECT 1))", true, false},
	{"eq-any", "SELECT a FROM t WHERE a = ANY (SELECT a FROM u)", false, false},
	{"eq-all", "SELECT a FROM t WHERE a = ALL (SELECT a FROM u)", false, false},
	{"gt-some", "SELECT a FROM t WHERE a > SOME (SELECT a FROM u)", false, false},
	{"in-subquery", "SELECT a FROM t WHERE a IN (SELECT a FROM u)", true, false},
	{"group-by-outer", "SELECT a, (SELECT count(*) FROM u GROUP BY t.a) FROM t", false, true},
	{"group-by-outer-exists", "SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a GROUP BY t.b)", false, true},
	{"group-by-outer-expr", "SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u GROUP BY u.c + t.a)", false, true},
	{"group-by-inner-correlated", "SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a GROUP BY u.c)", true, false},
	{"having-outer", "SELECT (SELECT count(*) FROM u WHERE u.a = t.a HAVING count(*) > t.a) FROM t", true, false},
	{"order-by-outer", "SELECT (SELECT c FROM u ORDER BY t.a LIMIT 1) FROM t", false, true},
	{"order-by-outer-expr", "SELECT a FROM t WHERE a IN (SELECT c FROM u ORDER BY c + t.a)", false, true},
	{"group-by-outer-nested", "SELECT (SELECT count(*) FROM u GROUP BY (SELECT t.a)) FROM t", false, true},
	{"order-by-inner-correlated", "SELECT (SELECT c FROM u WHERE u.a = t.a ORDER BY c LIMIT 1) FROM t", true, false},
	{"order-by-alias-of-outer", "SELECT (SELECT t.a AS z FROM u ORDER BY z LIMIT 1) FROM t", true, false},
	{"group-by-alias-of-outer", "SELECT (SELECT t.a AS z FROM u GROUP BY z) FROM t", true, false},
	{"order-by-outer-top", "SELECT * FROM t, (SELECT 1 AS one) x ORDER BY t.a", true, false},
	{"order-by-agg-nonagg", "SELECT a FROM t ORDER BY count(*)", false, false},
	{"order-by-agg-expr-nonagg", "SELECT a FROM t ORDER BY max(b) + 1", false, false},
	{"order-by-agg-distinct", "SELECT DISTINCT a FROM t ORDER BY count(*)", false, false},
	{"order-by-agg-agg", "SELECT count(*) FROM t ORDER BY count(*)", true, false},
	{"order-by-agg-grouped", "SELECT a FROM t GROUP BY a ORDER BY count(*)", true, false},
	{"order-by-agg-in-subquery", "SELECT a FROM t ORDER BY (SELECT count(*) FROM u)", true, false},
	{"order-by-agg-union", "SELECT a FROM t UNION SELECT a FROM u ORDER BY count(*)", false, false},
	{"empty-select-list", "SELECT FROM t", false, false},
	// Issue 23: an inner join's ON may read a table joined to its right,
	// and a comma binds as JOIN does; an outer join's ON may not.
	{"on-reads-right-table", "SELECT t.a FROM t JOIN u ON t.a = v.a JOIN u v ON u.c = v.c", true, false},
	{"comma-then-join-on-left", "SELECT t.a FROM t, u JOIN u v ON t.a = v.a", true, false},
	{"cross-then-on-left", "SELECT t.a FROM t CROSS JOIN u JOIN u v ON t.a = v.c AND u.a = v.a", true, false},
	{"left-join-on-reads-right", "SELECT t.a FROM t LEFT JOIN u ON t.a = v.a JOIN u v ON 1", false, false},
	{"on-reads-unknown-table", "SELECT t.a FROM t JOIN u ON t.a = w.a", false, false},
	// A 'string' where only a name may stand is a name.
	{"string-table", "SELECT count(*) FROM 't'", true, false},
	{"string-table-alias", "SELECT w.a FROM 't' 'w'", true, false},
	{"string-alias", "SELECT a AS 'the a' FROM t", true, false},
	{"string-join-table", "SELECT t.a FROM t JOIN 'u' ON t.a = u.a", true, false},
	{"string-table-after-comma", "SELECT w.a FROM t, 'u' w WHERE w.a = t.a", true, false},
	{"string-value-in-call", "SELECT coalesce(b, 'x') FROM t", true, false},
	{"string-value-in-select-list", "SELECT a, 'x' FROM t", true, false},
	{"string-value-after-distinct-from", "SELECT a FROM t WHERE b IS DISTINCT FROM 'x'", true, false},
	{"string-select-value", "SELECT 'a' FROM t", true, false},
	{"double-colon-cast", "SELECT a::text FROM t", false, false},
	{"cast", "SELECT CAST(a AS TEXT) FROM t", true, false},
	{"ilike", "SELECT a FROM t WHERE b ILIKE 'x'", false, false},
	{"not-ilike", "SELECT a FROM t WHERE b NOT ILIKE 'x'", false, false},
	{"like-escape", `SELECT a FROM t WHERE b LIKE 'x' ESCAPE '\'`, true, false},
	{"distinct-on", "SELECT DISTINCT ON (a) a, b FROM t", false, false},
	{"filter", "SELECT count(*) FILTER (WHERE a > 1) FROM t", true, false},
	{"lateral", "SELECT * FROM t, LATERAL (SELECT 1) x", false, false},
	{"full-join", "SELECT * FROM t FULL JOIN u ON t.a = u.a", true, false},
	{"right-join", "SELECT * FROM t RIGHT JOIN u ON t.a = u.a", true, false},
	{"natural-join", "SELECT * FROM t NATURAL JOIN u", true, false},
	{"using-join", "SELECT t.b FROM t JOIN u USING (a)", true, false},
	{"limit-offset", "SELECT a FROM t LIMIT 1 OFFSET 1", true, false},
	{"limit-comma", "SELECT a FROM t LIMIT 1, 2", true, false},
	{"offset-without-limit", "SELECT a FROM t OFFSET 1", false, false},
	{"fetch-first", "SELECT a FROM t FETCH FIRST 1 ROWS ONLY", false, false},
	{"limit-all", "SELECT a FROM t LIMIT ALL", false, false},
	{"similar-to", "SELECT a FROM t WHERE b SIMILAR TO 'x'", false, false},
	{"regex-match", "SELECT a FROM t WHERE b ~ 'x'", false, false},
	{"array-literal", "SELECT ARRAY[1, 2]", false, false},
	{"eq-any-array", "SELECT a FROM t WHERE a = ANY (ARRAY[1, 2])", false, false},
	{"is-distinct-from", "SELECT a FROM t WHERE a IS DISTINCT FROM 1", true, false},
	{"is-not-distinct-from", "SELECT a FROM t WHERE a IS NOT DISTINCT FROM 1", true, false},
	{"is-true", "SELECT a FROM t WHERE b IS TRUE", true, false},
	{"nulls-first", "SELECT a FROM t ORDER BY a NULLS FIRST", true, false},
	{"intersect", "SELECT a FROM t INTERSECT SELECT a FROM u", true, false},
	{"except-all", "SELECT a FROM t EXCEPT ALL SELECT a FROM u", false, false},
	{"intersect-all", "SELECT a FROM t INTERSECT ALL SELECT a FROM u", false, false},
	{"true-literal", "SELECT TRUE", true, false},
	{"rollup", "SELECT a FROM t GROUP BY ROLLUP (a)", false, false},
	{"grouping-sets", "SELECT a FROM t GROUP BY GROUPING SETS ((a))", false, false},
	{"cube", "SELECT a FROM t GROUP BY CUBE (a)", false, false},
	{"window", "SELECT a, row_number() OVER (ORDER BY a) FROM t", true, false},
	{"named-window", "SELECT a, rank() OVER w FROM t WINDOW w AS (ORDER BY a)", true, false},
	{"between-symmetric", "SELECT a FROM t WHERE a BETWEEN SYMMETRIC 1 AND 2", false, false},
	{"extract", "SELECT EXTRACT(year FROM b) FROM t", false, false},
	{"substring-from", "SELECT substring(b FROM 1 FOR 2) FROM t", false, false},
	{"position-in", "SELECT position('a' IN b) FROM t", false, false},
	{"concat-op", "SELECT b || 'x' FROM t", true, false},
	{"scalar-subquery", "SELECT a FROM t WHERE a = (SELECT a FROM u LIMIT 1)", true, false},
	{"column-alias-list", "SELECT y FROM t AS x(y, z)", false, false},
	{"values-in-from", "SELECT * FROM (VALUES (1), (2)) v", true, false},
	{"values", "VALUES (1), (2)", true, false},
	{"from-only", "SELECT a FROM ONLY t", false, false},
	{"in-list", "SELECT a FROM t WHERE a IN (1, 2)", true, false},
	{"order-by-ordinal", "SELECT a FROM t ORDER BY 1", true, false},
	{"having-aggregate", "SELECT a FROM t GROUP BY a HAVING count(*) > 1", true, false},
	{"having-without-group-by-agg", "SELECT count(*) FROM t HAVING count(*) > 1", true, false},
	{"having-non-aggregate", "SELECT a FROM t HAVING a > 1", false, false},
	{"row-value", "SELECT a FROM t WHERE (a, b) = (1, 'x')", true, false},
	{"row-value-in-subquery", "SELECT a FROM t WHERE (a, b) IN (SELECT a, c FROM u)", true, false},
	{"order-using", "SELECT a FROM t ORDER BY a USING <", false, false},
	{"for-update", "SELECT a FROM t FOR UPDATE", false, false},
	{"interval-literal", "SELECT INTERVAL '1 day'", false, false},
	{"typed-date-literal", "SELECT DATE '2020-01-01'", false, false},
	{"now", "SELECT now()", false, false},
	{"greatest", "SELECT greatest(1, 2)", false, false},
	{"tilde-tilde", "SELECT a FROM t WHERE b ~~ 'x'", false, false},
	{"group-by-ordinal", "SELECT a FROM t GROUP BY 1", true, false},
	{"count-distinct", "SELECT count(DISTINCT a) FROM t", true, false},
	{"string-agg", "SELECT string_agg(b, ',') FROM t", false, true},
	{"group-concat", "SELECT group_concat(b, ',') FROM t", true, false},
	{"iif", "SELECT iif(a > 1, 'x', 'y') FROM t", true, false},
	{"backtick", "SELECT `a` FROM `t`", true, false},
	{"double-equals", "SELECT a FROM t WHERE a == 1", true, false},
	{"glob", "SELECT a FROM t WHERE b GLOB 'x*'", true, false},
	{"empty-in-list", "SELECT a FROM t WHERE a IN ()", true, false},
	{"not-in-subquery", "SELECT a FROM t WHERE a NOT IN (SELECT a FROM u)", true, false},
	{"isnull-postfix", "SELECT a FROM t WHERE b ISNULL", true, false},
	{"notnull-postfix", "SELECT a FROM t WHERE b NOTNULL", true, false},
	{"bit-ops", "SELECT a & 1, a | 2, a << 1, ~a FROM t", true, false},
	{"collate-nocase", "SELECT a FROM t ORDER BY b COLLATE NOCASE", true, false},
	{"cast-int", "SELECT CAST(b AS INT) FROM t", true, false},
	{"having-grouped-column", "SELECT count(*) FROM t GROUP BY a HAVING a > 1", true, false},
	{"distinct", "SELECT DISTINCT a FROM t", true, false},
	{"cte-column-list", "WITH x(y) AS (SELECT a FROM t) SELECT y FROM x", true, false},
	{"recursive-cte", "WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM x WHERE n < 3) SELECT n FROM x", true, false},
	{"trim-from", "SELECT trim(BOTH 'x' FROM b) FROM t", false, false},
	{"trim", "SELECT trim(b) FROM t", true, false},
	{"substr", "SELECT substr(b, 1, 2) FROM t", true, false},
	{"double-quoted-string", `SELECT a FROM t WHERE b = "x"`, true, false},
	// Issue 33, item 13: valid SQLite the planner once refused.
	{"alias-in-where", "SELECT a + 1 AS z FROM t WHERE z > 2", true, false},
	{"aggregate-alias-in-where", "SELECT count(*) AS n FROM t WHERE n > 0", false, false},
	{"window-alias-in-where", "SELECT row_number() OVER () AS r FROM t WHERE r = 1", false, false},
	{"comma-then-left-join-on-left", "SELECT t.a FROM t, u LEFT JOIN u v ON t.a = v.a", true, false},
	{"is-value", "SELECT a FROM t WHERE a IS 20", true, false},
	{"is-not-string", "SELECT a FROM t WHERE b IS NOT 'US'", true, false},
	{"brackets", "SELECT [a] FROM [t] WHERE [t].[b] = 'x'", true, false},
	{"natural-left-join", "SELECT * FROM t NATURAL LEFT JOIN u", true, false},
	{"distinct-order-unselected", "SELECT DISTINCT a FROM t ORDER BY b", true, false},
}

// TestSQLiteFidelitySweep (issue 18, cause 18): a query SQLite rejects is
// never planned in the sqlite dialect, so it is never judged equivalent
// to one that runs. Each construct runs through the real engine
// (prepared against fidelityDDL) and the planner; where the engine
// rejects, the planner must too. Where the engine accepts and the
// planner does not, the construct is logged (a query the judge cannot
// read, which is no wrong verdict).
func TestSQLiteFidelitySweep(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(fidelityDDL); err != nil {
		t.Fatal(err)
	}
	var version string
	if err := db.QueryRow("SELECT sqlite_version()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	t.Logf("real SQLite %s", version)
	s := fidelitySchema(t)
	// The sqlite3 shell, where installed, is a second engine: the cases
	// pin SQLite 3.40's answers, which it gives exactly when it is 3.40.
	cli, _ := exec.LookPath("sqlite3")
	cliExact := false
	if cli != "" {
		out, err := exec.Command(cli, ":memory:", "SELECT sqlite_version()").CombinedOutput()
		if err != nil {
			t.Fatalf("sqlite3 shell: %v: %s", err, out)
		}
		v := strings.TrimSpace(string(out))
		cliExact = strings.HasPrefix(v, "3.40.")
		t.Logf("sqlite3 shell %s (answers compared exactly: %v)", v, cliExact)
	}
	for _, c := range fidelityCases {
		t.Run(c.name, func(t *testing.T) {
			stmt, engErr := db.Prepare(c.sql)
			if engErr == nil {
				stmt.Close()
			}
			engineOK := engErr == nil
			if engineOK != c.ok && !(c.newer && engineOK) {
				t.Fatalf("SQLite %s: accepts %q: %v (error %v), the case says %v", version, c.sql, engineOK, engErr, c.ok)
			}
			if cli != "" {
				out, err := exec.Command(cli, "-bail", ":memory:", fidelityDDL+"\n"+c.sql+";").CombinedOutput()
				cliOK := err == nil && !strings.Contains(string(out), "Error")
				if cliOK != c.ok && (cliExact || !(c.newer && cliOK)) {
					t.Fatalf("sqlite3 shell: accepts %q: %v (%s), the case says %v", c.sql, cliOK, strings.TrimSpace(string(out)), c.ok)
				}
			}
			_, planErr := build.Build(s, c.sql)
			switch {
			case !c.ok && planErr == nil:
				t.Errorf("planner accepts %q, which SQLite rejects: %v", c.sql, engErr)
			case c.ok && planErr != nil:
				t.Logf("SQLite accepts %q; the planner does not: %v", c.sql, planErr)
			}
		})
	}
}
