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

// TestBypassPreparedExecute (issue 34, item 10): an EXECUTE of a
// statement the session prepared (in the same Query or earlier, seen by
// the proxy) is judged as the query it runs, its arguments cast to the
// declared types: a right argument runs, a wrong one is refused. A tag
// on the PREPARE's query tags each EXECUTE of it. An
// EXECUTE of a statement the proxy did not see prepared, or one that may
// have been replaced since (DEALLOCATE, then PREPARE again unseen), stays
// code it cannot see: refused, and a write so run does not happen.
func TestBypassPreparedExecute(t *testing.T) {
	setRef := "SET pgequiv.reference = '" + countStar + "'"
	prep := func(name string) string {
		return "PREPARE " + name + "(int) AS SELECT count(owner_id) FROM dogs WHERE age > $1"
	}
	runEnforceCases(t, bypassSettings(t), []enforceCase{
		{name: "same Query, right argument", sql: prep("q1") + "; EXECUTE q1(5) " + tagRef(countStar), twice: false},
		{name: "same Query, wrong argument", sql: prep("q1") + "; EXECUTE q1(2) " + tagRef(countStar),
			code: SQLStateNotEquivalent, msg: "statement 2 of 2: not_equivalent"},
		{name: "earlier, tagged PREPARE", setup: []string{prep("q2") + " " + tagRef(countStar)},
			sql: "EXECUTE q2(5) " + tagRef(countStar), probe: "EXECUTE q2(1) " + tagRef(countStar), probeCode: SQLStateNotEquivalent, probeMsg: "not_equivalent"},
		{name: "tag on the PREPARE only", setup: []string{prep("q6") + " " + tagRef(countStar)},
			sql: "EXECUTE q6(5)", twice: true, probe: "EXECUTE q6(1)", probeCode: SQLStateNotEquivalent, probeMsg: "not_equivalent"},
		{name: "session reference", setup: []string{setRef, prep("q3")},
			sql: "EXECUTE q3(5)", twice: true, probe: "EXECUTE q3(4 - 3)", probeCode: SQLStateNotEquivalent, probeMsg: "not_equivalent"},
		{name: "replaced unseen after DEALLOCATE", setup: []string{prep("q4") + " " + tagRef(countStar), "DEALLOCATE q4",
			"PREPARE q4(int) AS SELECT count(*), 1 FROM dogs WHERE age > $1"},
			sql: "EXECUTE q4(5) " + tagRef(countStar), code: SQLStateUnverified, msg: "EXECUTE has side effects"},
		{name: "write prepared unseen", setup: []string{"PREPARE w(int) AS " + strings.Replace(ownerIns(9902), "9902", "$1", 1), setRef},
			sql: "EXECUTE w(9902)", code: SQLStateUnverified, msg: "EXECUTE has side effects", check: ownerCount(9902)},
		{name: "a failed PREPARE is not kept", setup: []string{setRef, prep("q5")},
			sql: "PREPARE q5(int) AS SELECT count(*), 1 FROM dogs WHERE age > $1", code: "42P05", msg: "already exists",
			probe: "EXECUTE q5(5)"},
	})
}

// TestBypassPreparedBeforeReference (issue 34, item 7): a statement a
// driver prepared before the session's reference was set was never
// judged; run under the reference in enforce mode it is refused (a write
// so prepared does not happen), and runs again once the reference is
// reset. Statements prepared under the reference run as judged.
func TestBypassPreparedBeforeReference(t *testing.T) {
	e := startJudgeProxy(t, bypassSettings(t), JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	direct := kennelDirect(t, ctx)
	conn, _ := e.connectNotices(t, ctx, kennelDB)
	ins := "INSERT INTO owners (owner_id, first_name, last_name) VALUES ($1, 'Eve', 'Mallory')"
	if _, err := conn.Prepare(ctx, "ins", ins); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Prepare(ctx, "wrong", wrongCount); err != nil {
		t.Fatal(err)
	}
	if err := simpleExec(ctx, conn, "SET pgequiv.reference = '"+countStar+"'"); err != nil {
		t.Fatal(err)
	}
	refused := func(name string, args ...any) {
		t.Helper()
		_, err := conn.Exec(ctx, name, args...)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != SQLStateUnverified || !strings.Contains(pgErr.Message, "prepared before the session's reference") {
			t.Fatalf("%s: got %v, want a PGQ02 refusal", name, err)
		}
	}
	refused("ins", 9802)
	refused("wrong")
	var n int
	if err := direct.QueryRow(ctx, ownerCount(9802)).Scan(&n); err != nil || n != 0 {
		t.Fatalf("in PostgreSQL: %d owners 9802 (%v), want 0", n, err)
	}
	// Prepared under the reference: judged (equivalent runs, the write is
	// refused at its Parse).
	if err := conn.QueryRow(ctx, countOwner, pgx.QueryExecModeCacheStatement).Scan(&n); err != nil || n != 1 {
		t.Fatalf("prepared under the reference: %d, %v", n, err)
	}
	if _, err := conn.Exec(ctx, "SHOW client_encoding", pgx.QueryExecModeCacheStatement); err != nil {
		t.Fatalf("SHOW prepared under the reference: %v", err)
	}
	// Without a reference the statement prepared before runs.
	if err := simpleExec(ctx, conn, "RESET pgequiv.reference"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "ins", 9803); err != nil {
		t.Fatalf("without a reference: %v", err)
	}
	if err := direct.QueryRow(ctx, ownerCount(9803)).Scan(&n); err != nil || n != 1 {
		t.Fatalf("in PostgreSQL: %d owners 9803 (%v), want 1", n, err)
	}
}
