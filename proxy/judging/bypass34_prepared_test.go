package judging

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestBypassPreparedReference (issue 34, item 7): a statement without
// parameters, prepared by pgx's statement cache (or psycopg's prepare)
// under one session reference, is judged again when it runs under
// another: equivalent to A it runs, not equivalent to B it is refused
// (and its rows are not returned), equivalent again under A it runs.
func TestBypassPreparedReference(t *testing.T) {
	e := startJudgeProxy(t, bypassSettings(t), JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	refA := countStar                                  // countOwner is equivalent to it
	refB := "SELECT count(*) FROM dogs WHERE age > 6"  // and not to this one
	refC := "SELECT count(*) FROM dogs WHERE age > $1" // a reference with a placeholder: bound from the candidate's 5
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe} {
		t.Run(mode.String(), func(t *testing.T) {
			conn, _ := e.connectNotices(t, ctx, kennelDB)
			for _, step := range []struct {
				ref  string
				code string
			}{
				{ref: refA},
				{ref: refB, code: SQLStateNotEquivalent},
				{ref: refA},
				{ref: refC},
				{ref: refB, code: SQLStateNotEquivalent},
			} {
				if err := simpleExec(ctx, conn, "SET pgequiv.reference = '"+strings.ReplaceAll(step.ref, "'", "''")+"'"); err != nil {
					t.Fatal(err)
				}
				var n int
				err := conn.QueryRow(ctx, countOwner, mode).Scan(&n)
				var pgErr *pgconn.PgError
				switch {
				case step.code == "" && (err != nil || n != 1):
					t.Fatalf("under %q: %d, %v; want it to run (1 row)", step.ref, n, err)
				case step.code != "" && (!errors.As(err, &pgErr) || pgErr.Code != step.code):
					t.Fatalf("under %q: %d, %v; want SQLSTATE %s", step.ref, n, err, step.code)
				}
			}
		})
	}
}

// TestAnnotateCountsExecutions (issue 34, item 7): in annotate mode each
// execution of a cached prepared statement, with or without parameters,
// gets its NOTICE and its verdict record, and the tagged counter counts
// executions, not Parses.
func TestAnnotateCountsExecutions(t *testing.T) {
	e := startJudgeProxy(t, annotateSettings(t), JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	for _, tc := range []struct {
		name, sql string
		args      []any
	}{
		{name: "no parameters", sql: withComment(countOwner, countStar)},
		{name: "a parameter", sql: withComment("SELECT count(owner_id) FROM dogs WHERE age > $1", "SELECT count(*) FROM dogs WHERE age > $1"), args: []any{5}},
		{name: "not equivalent", sql: withComment(countOwner, "SELECT count(*) FROM dogs WHERE age > 6")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, notices := e.connectNotices(t, ctx, kennelDB)
			before, records := e.j.stats.tagged.Load(), len(e.j.RecentVerdicts())
			const runs = 4
			for range runs {
				var n int
				if err := conn.QueryRow(ctx, tc.sql, append([]any{pgx.QueryExecModeCacheStatement}, tc.args...)...).Scan(&n); err != nil || n != 1 {
					t.Fatalf("%d, %v", n, err)
				}
			}
			e.j.Wait()
			ns := notices()
			if len(ns) != runs {
				t.Fatalf("%d notices for %d executions: %q", len(ns), runs, ns)
			}
			for _, n := range ns[1:] {
				if n != ns[0] {
					t.Fatalf("notices differ: %q", ns)
				}
			}
			if got := e.j.stats.tagged.Load() - before; got != runs {
				t.Fatalf("tagged counter grew by %d for %d executions", got, runs)
			}
			if got := len(e.j.RecentVerdicts()) - records; got != runs {
				t.Fatalf("%d verdict records for %d executions", got, runs)
			}
		})
	}
}
