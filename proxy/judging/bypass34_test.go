package judging

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgequiv/pgequiv/internal/pgtest"
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
	// probe, when set, is sent after sql, refused with probeCode (or
	// run, when that is empty); check then is about the probe.
	probe, probeCode, probeMsg string
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
			expect := func(sql, code, msg string) {
				t.Helper()
				err := simpleExec(ctx, conn, sql)
				if code == "" {
					if err != nil {
						e.j.Wait()
						t.Fatalf("%q\nrefused: %v\nrecent verdicts: %+v", sql, err, e.j.RecentVerdicts())
					}
					return
				}
				var pgErr *pgconn.PgError
				if !errors.As(err, &pgErr) || pgErr.Code != code || !strings.Contains(pgErr.Message, msg) {
					e.j.Wait()
					t.Fatalf("%q\ngot %v, want SQLSTATE %s with %q\nrecent verdicts: %+v", sql, err, code, msg, e.j.RecentVerdicts())
				}
			}
			for range rounds {
				expect(tc.sql, tc.code, tc.msg)
			}
			last := tc.code
			if tc.probe != "" {
				expect(tc.probe, tc.probeCode, tc.probeMsg)
				last = tc.probeCode
			}
			if tc.check != "" {
				want := 0
				if last == "" {
					want = 1
				}
				var n int
				if err := direct.QueryRow(ctx, tc.check).Scan(&n); err != nil || n != want {
					t.Fatalf("in PostgreSQL: %s = %d (%v), want %d", tc.check, n, err, want)
				}
			}
			for _, s := range []string{"RESET ALL", "SELECT 7"} {
				if err := simpleExec(ctx, conn, s); err != nil {
					t.Fatalf("the connection after the case: %s: %v", s, err)
				}
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

// TestBypassSettingsDrift (issue 34, item 8): the proxy follows a
// set_config of a pgequiv setting only where it surely runs; one that
// may not (a WHERE that is false, an untaken CASE branch, LIMIT 0) is
// refused in enforce mode and leaves the proxy's reference in force, as
// the server's (which never ran the call) is. A SET whose value is not
// UTF-8 is an error, not a silent SET. The probe, a write, is refused
// while the reference is in force and runs once it is really cleared.
func TestBypassSettingsDrift(t *testing.T) {
	setRef := "SET pgequiv.reference = '" + countStar + "'"
	clear := "set_config('pgequiv.reference', '', false)"
	drift := func(name, sql string, id int) enforceCase {
		return enforceCase{name: name, setup: []string{setRef}, sql: sql, code: SQLStateUnverified, msg: "followed only in a statement of its own",
			probe: ownerIns(id), probeCode: SQLStateUnverified, probeMsg: "INSERT has side effects", check: ownerCount(id)}
	}
	runEnforceCases(t, bypassSettings(t), []enforceCase{
		drift("set_config in a WHERE false", "SELECT "+clear+" FROM dogs WHERE false", 9301),
		drift("set_config in an untaken CASE branch", "SELECT CASE WHEN false THEN "+clear+" END", 9302),
		drift("set_config with LIMIT 0", "SELECT "+clear+" LIMIT 0", 9303),
		drift("set_config in a subquery", "SELECT (SELECT "+clear+" FROM dogs WHERE age > 100)", 9304),
		drift("set_config beside another statement", "SELECT 1; SELECT "+clear, 9305),
		{name: "SET with invalid UTF-8", setup: []string{setRef}, sql: "SET pgequiv.reference = 'SELECT count(*) FROM dogs WHERE name = ''\xff'''",
			code: "22021", msg: "pgequiv: invalid byte sequence",
			probe: ownerIns(9306), probeCode: SQLStateUnverified, probeMsg: "INSERT has side effects", check: ownerCount(9306)},
		// What is followed.
		{name: "plain set_config clears the reference", setup: []string{setRef}, sql: "SELECT " + clear,
			probe: ownerIns(9307), check: ownerCount(9307)},
		{name: "plain set_config sets the reference", sql: "SELECT set_config('pgequiv.reference', '" + countStar + "', false)",
			probe: ownerIns(9308), probeCode: SQLStateUnverified, probeMsg: "INSERT has side effects", check: ownerCount(9308)},
	})
}

// TestBypassUnreadWrites (issue 34, item 3, the unread paths): a tagged
// statement over max_query_size is not parsed, but the proxy's lexer
// still finds its write, which enforce mode refuses for its side effects
// whatever enforce_unknown says; a padded read stays an unknown verdict,
// forwarded under enforce_unknown: false. Words in comments and literals
// are not writes.
func TestBypassUnreadWrites(t *testing.T) {
	set := bypassSettings(t)
	set.Options.MaxQueryBytes = 2048
	pad := "/*" + strings.Repeat("x", 3000) + "*/ "
	runEnforceCases(t, set, []enforceCase{
		{name: "padded tagged UPDATE", sql: "UPDATE dogs SET age = 98 WHERE dog_id = 1 " + pad + tagRef(countStar),
			code: SQLStateUnverified, msg: "not judged: UPDATE (seen by the proxy's lexer", check: "SELECT count(*) FROM dogs WHERE age = 98"},
		{name: "padded tagged data-modifying WITH", sql: "WITH d AS (DELETE FROM dogs WHERE dog_id = 2 RETURNING 1) SELECT count(*) FROM dogs " + pad + tagRef(countStar),
			code: SQLStateUnverified, msg: "not judged: DELETE", check: "SELECT 1 - count(*) FROM dogs WHERE dog_id = 2"},
		{name: "padded write under a session reference", setup: []string{"SET pgequiv.reference = '" + countStar + "'"},
			sql: ownerIns(9501) + " " + pad, code: SQLStateUnverified, msg: "not judged: INSERT", check: ownerCount(9501)},
		{name: "padded write hidden behind a tag-looking string", sql: "SELECT '" + strings.Repeat("y", 3000) + "'; " + ownerIns(9502) + " " + tagRef(countStar),
			code: SQLStateUnverified, msg: "not judged: INSERT", check: ownerCount(9502)},
		// Reads run: unknown, forwarded under enforce_unknown: false.
		{name: "padded tagged SELECT", sql: countOwner + " " + pad + tagRef(countStar)},
		{name: "padded SELECT naming writes in comments and strings", sql: countOwner + " AND 'update' <> 'insert into' /* DELETE */ " + pad + tagRef(countStar)},
	})
}

// TestBypassBusyWrites: the same while the proxy is too busy to read a
// tagged statement (every read slot taken): the write is refused and does
// not happen, the read is forwarded.
func TestBypassBusyWrites(t *testing.T) {
	set := bypassSettings(t)
	set.VerdictTimeout = 400 * time.Millisecond
	e := startJudgeProxy(t, set, JudgingOptions{ReadSlots: 1})
	ctx := testCtx(t, 60*time.Second)
	direct := kennelDirect(t, ctx)
	conn, _ := e.connectNotices(t, ctx, kennelDB)
	e.j.admit.slots <- struct{}{} // the proxy is busy reading another statement
	defer func() { <-e.j.admit.slots }()
	err := simpleExec(ctx, conn, "UPDATE dogs SET age = 97 WHERE dog_id = 1 "+tagRef(countStar))
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != SQLStateUnverified || !strings.Contains(pgErr.Message, "not judged: UPDATE") {
		t.Fatalf("tagged UPDATE while busy: %v", err)
	}
	var n int
	if err := direct.QueryRow(ctx, "SELECT count(*) FROM dogs WHERE age = 97").Scan(&n); err != nil || n != 0 {
		t.Fatalf("the refused UPDATE ran: %d rows, %v", n, err)
	}
	if err := simpleExec(ctx, conn, countOwner+" "+tagRef(countStar)); err != nil {
		t.Fatalf("tagged SELECT while busy: %v", err)
	}
}

// TestBypassClientEncoding (issue 34, item 1): under client_encoding SJIS
// the bytes C2 83 5C are two characters to the server (a half-width kana,
// then 83 5C) and U+0083 and a backslash to a reader of UTF-8: the string
// E'<C2 83 5C>' closes early for the server, which then runs the UPDATE
// the proxy reads as string data. Enforce mode refuses a judged statement
// with bytes over 0x7F under any client_encoding but UTF8 (PGQ02, whatever
// enforce_unknown); ASCII text reads alike in every encoding and is judged
// as before, and an untagged statement is not the judge's business.
func TestBypassClientEncoding(t *testing.T) {
	ref := "SELECT count(*) FROM dogs WHERE dog_id = 1"
	attack := "SELECT count(*) FROM dogs WHERE E'\xc2\x83\x5c' IS NULL; UPDATE dogs SET age = 96 WHERE dog_id = 1; --' IS NULL OR dog_id = 1 " + tagRef(ref)
	untouched := "SELECT 1 - count(*) FROM dogs WHERE age = 96" // 1: the UPDATE did not run
	sjis := []string{"SET client_encoding = 'SJIS'"}
	runEnforceCases(t, bypassSettings(t), []enforceCase{
		{name: "SJIS: a backslash taken into a character", setup: sjis, sql: attack,
			code: SQLStateUnverified, msg: "client_encoding is SJIS", check: "SELECT count(*) FROM dogs WHERE age = 96", twice: true},
		{name: "BIG5", setup: []string{"SET client_encoding = 'BIG5'"}, sql: attack,
			code: SQLStateUnverified, msg: "client_encoding is BIG5", check: "SELECT count(*) FROM dogs WHERE age = 96"},
		{name: "LATIN1: another character", setup: []string{"SET client_encoding = 'LATIN1'"},
			sql:  "SELECT count(*) FROM owners WHERE first_name <> '\xc3\xa9' " + tagRef("SELECT count(*) FROM owners WHERE first_name <> '\xc3\xa9'"),
			code: SQLStateUnverified, msg: "client_encoding is LATIN1"},
		{name: "SJIS: session reference", setup: []string{"SET client_encoding = 'SJIS'", "SET pgequiv.reference = '" + ref + "'"},
			sql:  "SELECT count(*) FROM dogs WHERE E'\xc2\x83\x5c' IS NULL; UPDATE dogs SET age = 96 WHERE dog_id = 1; --' IS NULL OR dog_id = 1",
			code: SQLStateUnverified, msg: "client_encoding is SJIS", check: "SELECT count(*) FROM dogs WHERE age = 96"},
		// What runs.
		{name: "SJIS: ASCII tagged statement is judged", setup: sjis, sql: countOwner + " " + tagRef(countStar), twice: true},
		{name: "SJIS: ASCII wrong statement is refused as before", setup: sjis, sql: wrongCount + " " + tagRef(countStar), code: SQLStateNotEquivalent, msg: "not_equivalent"},
		{name: "SJIS: untagged statement", setup: sjis, sql: "SELECT '\x83\x40' FROM dogs WHERE dog_id = 1", check: untouched},
		{name: "UTF8: the same bytes are one string", sql: attack, check: untouched},
		{name: "back to UTF8", setup: []string{"SET client_encoding = 'SJIS'", "SET client_encoding = 'UTF8'"}, sql: attack, check: untouched},
	})
}

// TestBypassClientEncodingStartup: client_encoding asked for in the
// startup message (PGCLIENTENCODING, libpq's client_encoding) counts as
// one set later, for statements and for bound values.
func TestBypassClientEncodingStartup(t *testing.T) {
	e := startJudgeProxy(t, bypassSettings(t), JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	direct := kennelDirect(t, ctx)
	cfg, err := pgconn.ParseConfig(dbConnString(e.Host, e.Port, pgtest.SuperUser, "", kennelDB))
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["client_encoding"] = "SJIS"
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if enc := conn.ParameterStatus("client_encoding"); enc != "SJIS" {
		t.Fatalf("client_encoding %q", enc)
	}
	attack := "SELECT count(*) FROM dogs WHERE E'\xc2\x83\x5c' IS NULL; UPDATE dogs SET age = 95 WHERE dog_id = 1; --' IS NULL OR dog_id = 1 " +
		tagRef("SELECT count(*) FROM dogs WHERE dog_id = 1")
	_, err = conn.Exec(ctx, attack).ReadAll()
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != SQLStateUnverified || !strings.Contains(pgErr.Message, "client_encoding is SJIS") {
		t.Fatalf("got %v, want a PGQ02 refusal naming SJIS", err)
	}
	var n int
	if err := direct.QueryRow(ctx, "SELECT count(*) FROM dogs WHERE age = 95").Scan(&n); err != nil || n != 0 {
		t.Fatalf("the refused UPDATE ran: %d rows, %v", n, err)
	}
	// The extended protocol: the Parse is refused.
	_, err = conn.Prepare(ctx, "", "SELECT count(*) FROM dogs WHERE '\x83\x40' IS NOT NULL AND dog_id = 1 "+
		tagRef("SELECT count(*) FROM dogs WHERE dog_id = 1"), nil)
	if !errors.As(err, &pgErr) || pgErr.Code != SQLStateUnverified || !strings.Contains(pgErr.Message, "client_encoding is SJIS") {
		t.Fatalf("Parse: got %v, want a PGQ02 refusal naming SJIS", err)
	}
	// ASCII statements are judged as under UTF8.
	if _, err := conn.Prepare(ctx, "", countOwner+" "+tagRef(countStar), nil); err != nil {
		t.Fatalf("ASCII Parse: %v", err)
	}
	// A bound value is read in the client's encoding too: C3 A9 is "é"
	// to a reader of UTF-8 and "ﾃｩ" to the server under SJIS, so the
	// statement (ASCII, its tag URL-encoded) is not judged for it.
	bound := "SELECT count(*) FROM owners WHERE first_name = $1 " + tagRef("SELECT count(*) FROM owners WHERE first_name = 'é'")
	for _, tc := range []struct {
		val, code, msg string
	}{
		{"Ã©", SQLStateUnverified, "parameter $1: the proxy reads statements as UTF-8, and this session's client_encoding is SJIS"},
		{"Eve", SQLStateNotEquivalent, "not_equivalent"},
	} {
		_, err := conn.ExecParams(ctx, bound, [][]byte{[]byte(tc.val)}, []uint32{25}, nil, nil).Close()
		if !errors.As(err, &pgErr) || pgErr.Code != tc.code || !strings.Contains(pgErr.Message, tc.msg) {
			t.Fatalf("Bind %q: got %v, want SQLSTATE %s with %q", tc.val, err, tc.code, tc.msg)
		}
	}
}
