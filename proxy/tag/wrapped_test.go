package tag

import (
	"testing"

	"github.com/pgequiv/pgequiv/internal/sqltext"
)

// TestUnwrap: a statement that runs a query is classified and judged on
// that query; one that runs a write is ClassRun (or ClassWrite for
// PREPARE, whose EXECUTE is ClassRun); the rest keep their class.
func TestUnwrap(t *testing.T) {
	for _, tc := range []struct {
		sql, judged string
		class       Class
		why         string
	}{
		{sql: "DECLARE c CURSOR FOR SELECT f(a) FROM t", judged: "SELECT f(a) FROM t", class: ClassQuery},
		{sql: "DECLARE \"for\" NO SCROLL CURSOR WITH HOLD FOR (SELECT 1) UNION SELECT 2 /*pgequiv_ref='SELECT 1'*/", judged: "(SELECT 1) UNION SELECT 2", class: ClassQuery},
		{sql: "DECLARE c CURSOR FOR SELECT * FROM t FOR UPDATE", class: ClassRun, why: "DECLARE CURSOR of SELECT ... FOR UPDATE/SHARE (row locks)"},
		{sql: "EXPLAIN ANALYZE SELECT count(*) FROM t", judged: "SELECT count(*) FROM t", class: ClassQuery},
		{sql: "EXPLAIN (ANALYZE, BUFFERS) SELECT 1", judged: "SELECT 1", class: ClassQuery},
		{sql: "EXPLAIN (ANALYZE false) SELECT 1", judged: "EXPLAIN (ANALYZE false) SELECT 1", class: ClassOther},
		{sql: "EXPLAIN SELECT 1", judged: "EXPLAIN SELECT 1", class: ClassOther},
		{sql: "EXPLAIN ANALYZE UPDATE t SET a = 1", class: ClassRun, why: "EXPLAIN ANALYZE of UPDATE"},
		{sql: "EXPLAIN ANALYZE EXECUTE p", class: ClassRun, why: "EXPLAIN ANALYZE of EXECUTE"},
		{sql: "PREPARE p AS UPDATE t SET a = 1", class: ClassWrite, why: "PREPARE of UPDATE"},
		{sql: "PREPARE q(int) AS SELECT a FROM t WHERE a = $1", judged: "SELECT a FROM t WHERE a = $1", class: ClassOther},
		{sql: "COPY (SELECT a FROM t) TO STDOUT (FORMAT csv)", judged: "SELECT a FROM t", class: ClassQuery},
		{sql: "COPY (SELECT a FROM t) TO '/tmp/x'", class: ClassRun, why: "COPY"},
		{sql: "COPY t TO STDOUT", class: ClassRun, why: "COPY"},
		{sql: "TRUNCATE t", class: ClassWrite, why: "TRUNCATE"},
		{sql: "CREATE TABLE x AS SELECT 1", class: ClassRun, why: "CREATE TABLE AS"},
		{sql: "REFRESH MATERIALIZED VIEW m", class: ClassRun, why: "REFRESH MATERIALIZED VIEW"},
	} {
		stmts, err := Split(tc.sql, sqltext.StandardStrings)
		if err != nil || len(stmts) != 1 {
			t.Fatalf("%s: %v %v", tc.sql, stmts, err)
		}
		s := stmts[0]
		if s.Class != tc.class || s.Why != tc.why || tc.judged != "" && s.Judged != tc.judged {
			t.Errorf("%s:\n got class %d %q judged %q\nwant class %d %q judged %q", tc.sql, s.Class, s.Why, s.Judged, tc.class, tc.why, tc.judged)
		}
	}
}

// TestExecutionBind: an EXECUTE is the prepared body with each argument
// cast to its declared type; arguments may be expressions.
func TestExecutionBind(t *testing.T) {
	stmts, err := Split("PREPARE q(int, text) AS SELECT a FROM t WHERE a > $1 AND b = $2; EXECUTE q(5, 'x'''); EXECUTE q(f(2) + 1, NULL); EXECUTE q(1)", sqltext.StandardStrings)
	if err != nil || len(stmts) != 4 || stmts[0].Prepare == nil || stmts[1].Execute == nil {
		t.Fatalf("%+v %v", stmts, err)
	}
	p := stmts[0].Prepare
	for i, want := range []string{
		"SELECT a FROM t WHERE a > (5::int) AND b = ('x'''::text)",
		"SELECT a FROM t WHERE a > (CAST(f(2) + 1 AS int)) AND b = (NULL::text)",
		"",
	} {
		got, ok := stmts[i+1].Execute.Bind(p)
		if want == "" {
			if ok {
				t.Errorf("EXECUTE %d: %q, want no text (too few arguments)", i+1, got)
			}
			continue
		}
		if !ok || got != want {
			t.Errorf("EXECUTE %d: %q %v, want %q", i+1, got, ok, want)
		}
	}
}
