package judging

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgequiv/pgequiv/proxy"
)

// The bypass suite of issue 34: statements that got past enforce mode
// because the proxy read a text or a session state other than the one
// PostgreSQL ran. Each case goes through an enforcing proxy to a real
// PostgreSQL; a refused case then checks, in PostgreSQL directly, that its
// writes did not happen, and a case that must run checks that it did.

// enforceCase is one simple Query through an enforcing proxy.
type enforceCase struct {
	name  string
	setup []string // run first on the proxied connection; must succeed
	sql   string
	// code is the refusal's SQLSTATE, msg a part of its message; an
	// empty code means the Query must run.
	code, msg string
	// check is a query run in PostgreSQL directly afterwards that must
	// return 0 (a refused write did not happen) or, for a Query that
	// must run, 1.
	check string
	// twice sends sql a second time (from the proxy's shape memo).
	twice bool
}

// ownerIns inserts owner id; ownerCount counts it.
func ownerIns(id int) string {
	return "INSERT INTO owners (owner_id, first_name, last_name) VALUES (" + strconv.Itoa(id) + ", 'Eve', 'Mallory')"
}

func ownerCount(id int) string { return ownerGone + strconv.Itoa(id) }

func runEnforceCases(t *testing.T, set JudgeSettings, cases []enforceCase, edit ...func(*proxy.Options)) {
	t.Helper()
	e := startJudgeProxy(t, set, JudgingOptions{}, edit...)
	ctx := testCtx(t, 180*time.Second)
	direct := kennelDirect(t, ctx)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			conn, _ := e.connectNotices(t, ctx, kennelDB)
			for _, s := range tc.setup {
				if err := simpleExec(ctx, conn, s); err != nil {
					t.Fatalf("%s: %v", s, err)
				}
			}
			rounds := 1
			if tc.twice {
				rounds = 2
			}
			for range rounds {
				err := simpleExec(ctx, conn, tc.sql)
				if tc.code == "" {
					if err != nil {
						e.j.Wait()
						t.Fatalf("%s\nrefused: %v\nrecent verdicts: %+v", tc.sql, err, e.j.RecentVerdicts())
					}
					break
				}
				var pgErr *pgconn.PgError
				if !errors.As(err, &pgErr) || pgErr.Code != tc.code || !strings.Contains(pgErr.Message, tc.msg) {
					e.j.Wait()
					t.Fatalf("%s\ngot %v, want SQLSTATE %s with %q\nrecent verdicts: %+v", tc.sql, err, tc.code, tc.msg, e.j.RecentVerdicts())
				}
			}
			if tc.check != "" {
				want := 0
				if tc.code == "" {
					want = 1
				}
				var n int
				if err := direct.QueryRow(ctx, tc.check).Scan(&n); err != nil || n != want {
					t.Fatalf("in PostgreSQL: %s = %d (%v), want %d", tc.check, n, err, want)
				}
			}
			if err := simpleExec(ctx, conn, "SELECT 7"); err != nil {
				t.Fatalf("the connection after the case: %v", err)
			}
		})
	}
}

// TestBypassTagCoversQuery (issue 34, item 5): a tag covers its own
// statement, but in enforce mode an untagged statement with side effects
// in the same Query is refused with it (no statement runs), and a tag in
// a -- comment is malformed, not absent. Untagged Queries, harmless
// neighbours and plain -- comments are unaffected.
func TestBypassTagCoversQuery(t *testing.T) {
	tagged := countOwner + " " + tagRef(countStar) // equivalent: runs alone
	runEnforceCases(t, bypassSettings(t), []enforceCase{
		{name: "untagged INSERT before an equivalent tagged SELECT", sql: ownerIns(9201) + "; " + tagged,
			code: SQLStateUnverified, msg: "statement 1 of 2: cannot judge: not judged: INSERT (untagged, beside tagged statement 2) has side effects",
			check: ownerCount(9201), twice: true},
		{name: "untagged UPDATE after an equivalent tagged SELECT", sql: tagged + "; UPDATE dogs SET age = 99 WHERE dog_id = 1",
			code: SQLStateUnverified, msg: "statement 2 of 2: cannot judge: not judged: UPDATE", check: "SELECT count(*) FROM dogs WHERE age = 99"},
		{name: "untagged DDL beside a tagged SELECT", sql: "CREATE TABLE bypass34_ddl (a int); " + tagged,
			code: SQLStateUnverified, msg: "statement 1 of 2: cannot judge: not judged: DDL (CreateStmt)",
			check: "SELECT count(*) FROM pg_class WHERE relname = 'bypass34_ddl'"},
		{name: "INSERT with its tag in a line comment", sql: ownerIns(9202) + " -- " + tagRef(countStar),
			code: SQLStateUnverified, msg: "INSERT has side effects", check: ownerCount(9202), twice: true},
		{name: "SELECT with its tag in a line comment", sql: countOwner + " -- " + tagRef(countStar),
			code: SQLStateUnverified, msg: "line comment is not read", twice: true},
		{name: "line-comment tag beside a block tag", sql: countOwner + " " + tagRef(countStar) + " -- pgequiv_ref='x'",
			code: SQLStateUnverified, msg: "line comment is not read"},
		{name: "line-comment tag in a later statement", sql: ownerIns(9203) + " -- " + tagRef(countStar) + "\n; SELECT 1",
			code: SQLStateUnverified, msg: "statement 1 of 2: cannot judge: not judged: INSERT", check: ownerCount(9203)},
		{name: "line-comment tag with backslash strings", setup: []string{"SET standard_conforming_strings = off"},
			sql: ownerIns(9204) + " -- " + tagRef(countStar), code: SQLStateUnverified, msg: "INSERT has side effects", check: ownerCount(9204)},
		// What must still run.
		{name: "tagged SELECT with harmless neighbours", sql: "BEGIN; SET LOCAL statement_timeout = '5s'; " + tagged + "; COMMIT", twice: true},
		{name: "tagged SELECT after a plain line comment", sql: countOwner + " -- a note\n" + tagRef(countStar), twice: true},
		{name: "untagged Query with a write", sql: ownerIns(9205) + "; SELECT 1 -- pgequiv is not a tag key", check: ownerCount(9205)},
	})
}

// TestBypassTagCoversQueryAnnotate: the rule is enforce mode's; annotate
// runs the same Query, writes included.
func TestBypassTagCoversQueryAnnotate(t *testing.T) {
	set := bypassSettings(t)
	set.Mode = ModeAnnotate
	runEnforceCases(t, set, []enforceCase{
		{name: "untagged INSERT before a tagged SELECT", sql: ownerIns(9206) + "; " + countOwner + " " + tagRef(countStar), check: ownerCount(9206)},
	})
}
