package tag

import (
	"errors"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/internal/sqltext"
)

func TestSplit(t *testing.T) {
	const tg = "/*pgequiv_ref='SELECT%201'*/"
	tests := []struct {
		name, sql string
		strs      sqltext.Strings
		// want lists, per statement, its judged text and whether it has
		// the tag.
		want []struct {
			judged string
			tagged bool
		}
	}{
		{name: "one statement keeps its semicolon", sql: "SELECT 2 " + tg + ";",
			want: []struct {
				judged string
				tagged bool
			}{{"SELECT 2  ;", true}}},
		{name: "trailing tag belongs to its statement", sql: "SELECT 1; SELECT 2 " + tg,
			want: []struct {
				judged string
				tagged bool
			}{{"SELECT 1", false}, {" SELECT 2  ", true}}},
		{name: "tag before the semicolon", sql: "SELECT 1 " + tg + "; SELECT 2",
			want: []struct {
				judged string
				tagged bool
			}{{"SELECT 1  ", true}, {" SELECT 2", false}}},
		{name: "tag after the last semicolon", sql: "SELECT 1; SELECT 2; " + tg,
			want: []struct {
				judged string
				tagged bool
			}{{"SELECT 1", false}, {" SELECT 2", true}}},
		{name: "tag before a statement's first word", sql: "SELECT 1; " + tg + " SELECT 2",
			want: []struct {
				judged string
				tagged bool
			}{{"SELECT 1", false}, {"   SELECT 2", true}}},
		{name: "semicolon inside a string", sql: "SELECT ';' " + tg,
			want: []struct {
				judged string
				tagged bool
			}{{"SELECT ';'  ", true}}},
		{name: "backslash strings get an E", sql: `SELECT 'O\'Brien;' ` + tg + `; SELECT 'a''b'`, strs: sqltext.BackslashStrings,
			want: []struct {
				judged string
				tagged bool
			}{{`SELECT E'O\'Brien;'  `, true}, {` SELECT 'a''b'`, false}}},
		{name: "backslash strings: continued string gets one E", sql: "SELECT 'a\\''\n'b\\'' " + tg, strs: sqltext.BackslashStrings,
			want: []struct {
				judged string
				tagged bool
			}{{"SELECT E'a\\''\n'b\\''  ", true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stmts, err := Split(tc.sql, tc.strs)
			if err != nil {
				t.Fatal(err)
			}
			if len(stmts) != len(tc.want) {
				t.Fatalf("%d statements, want %d: %+v", len(stmts), len(tc.want), stmts)
			}
			for i, w := range tc.want {
				if stmts[i].Judged != w.judged || (stmts[i].Comment != nil) != w.tagged {
					t.Errorf("statement %d: judged %q tagged %v, want %q %v", i+1, stmts[i].Judged, stmts[i].Comment != nil, w.judged, w.tagged)
				}
				if stmts[i].JudgedErr != nil {
					t.Errorf("statement %d: %v", i+1, stmts[i].JudgedErr)
				}
			}
		})
	}
}

func TestSplitNotRewritable(t *testing.T) {
	stmts, err := Split(`SELECT N'\'' /*pgequiv_ref='x'*/`, sqltext.BackslashStrings)
	if err != nil || len(stmts) != 1 || stmts[0].JudgedErr == nil || stmts[0].Comment == nil {
		t.Fatalf("%+v, %v", stmts, err)
	}
}

func TestSplitUncertain(t *testing.T) {
	const tg = "/*pgequiv_ref='x'*/"
	for _, tc := range []struct {
		sql       string
		ambiguous bool
	}{
		{"SELECT 'a' " + tg, false},
		{`SELECT E'a\'' ` + tg, false}, // E'' reads the same either way
		{`SELECT 'a\\' ` + tg, true},   // same boundaries, but the value differs
		{`SELECT 'a\' ` + tg + ` '`, true},
		{`SELECT 'a\' ` + tg, true},
	} {
		_, err := SplitUncertain(tc.sql, sqltext.StandardStrings)
		if got := errors.Is(err, ErrAmbiguousStrings); got != tc.ambiguous {
			t.Errorf("%q: ambiguous = %v (%v), want %v", tc.sql, got, err, tc.ambiguous)
		}
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		sql   string
		class Class
		why   string
	}{
		{"SELECT 1", ClassQuery, ""},
		{"VALUES (1)", ClassQuery, ""},
		{"TABLE dogs", ClassQuery, ""},
		{"WITH x AS (SELECT 1) SELECT * FROM x", ClassQuery, ""},
		{"WITH d AS (DELETE FROM t RETURNING *) SELECT 1", ClassWrite, "DELETE in a WITH clause"},
		{"SELECT * FROM (WITH u AS (SELECT 1) SELECT * FROM u) s", ClassQuery, ""},
		{"SELECT * INTO t2 FROM t", ClassWrite, "SELECT INTO"},
		{"SELECT * FROM t FOR UPDATE", ClassWrite, "SELECT ... FOR UPDATE/SHARE (row locks)"},
		{"SELECT a FROM t WHERE b = nextval('s')", ClassWrite, "a call of nextval"},
		{"SELECT pg_catalog.set_config('x', 'y', false)", ClassWrite, "a call of set_config"},
		{"SELECT lower(a), count(*) FROM t GROUP BY 1", ClassQuery, ""},
		{"INSERT INTO t VALUES (1)", ClassWrite, "INSERT"},
		{"UPDATE t SET a = 1", ClassWrite, "UPDATE"},
		{"DELETE FROM t", ClassWrite, "DELETE"},
		{"MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN DELETE", ClassWrite, "MERGE"},
		{"CREATE TABLE t (a int)", ClassEffect, "DDL (CreateStmt)"},
		{"DROP TABLE t", ClassEffect, "DDL (DropStmt)"},
		{"DO $$BEGIN END$$", ClassRun, "DO"},
		{"CALL p()", ClassRun, "CALL"},
		{"COPY t FROM STDIN", ClassRun, "COPY"},
		{"TRUNCATE t", ClassWrite, "TRUNCATE"},
		{"EXECUTE s", ClassRun, "EXECUTE"},
		{"EXPLAIN ANALYZE DELETE FROM t", ClassRun, "EXPLAIN ANALYZE of DELETE"},
		{"EXPLAIN (ANALYZE false) DELETE FROM t", ClassOther, ""},
		{"EXPLAIN SELECT 1", ClassOther, ""},
		{"BEGIN", ClassOther, ""},
		{"SET x = 1", ClassOther, ""},
		{"SHOW x", ClassOther, ""},
	} {
		tree, err := pg.Parse(tc.sql)
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		c, why := Classify(tree.Stmts[0].Stmt)
		if c != tc.class || why != tc.why {
			t.Errorf("%s: %v %q, want %v %q", tc.sql, c, why, tc.class, tc.why)
		}
	}
}
