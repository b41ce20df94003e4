package judging

import (
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/proxy"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// The bypass suite (issue 19): each way a wrong query or a write could get
// past enforce mode unjudged, through a real PostgreSQL. Each case asserts
// the refusal and, in PostgreSQL directly, that its writes did not happen.

// bypassCase is one statement sent through an enforcing proxy.
type bypassCase struct {
	name string
	// setup runs first on the proxied connection (SET ...), unjudged.
	setup []string
	sql   string
	code  string // the SQLSTATE of the refusal
	// msg must be in the refusal's message.
	msg string
	// absent is a query run in PostgreSQL directly afterwards that must
	// return 0: the refused statement's writes did not happen.
	absent string
}

const (
	wrongCount = "SELECT count(*), 1 FROM dogs WHERE age > 5" // not equivalent to countStar
	ownerGone  = "SELECT count(*) FROM owners WHERE owner_id = "
)

func tagRef(ref string) string { return tag.Encode(tag.KV{Key: tag.KeyRef, Value: ref}) }

func bypassCases() []bypassCase {
	ins := func(id int) string {
		return "INSERT INTO owners (owner_id, first_name, last_name) VALUES (" + strconv.Itoa(id) + ", 'Eve', 'Mallory')"
	}
	gone := func(id int) string { return ownerGone + strconv.Itoa(id) }
	ownersRef := "SELECT count(*) FROM owners WHERE first_name <> E'O\\'Brien'"
	return []bypassCase{
		{name: "multi-statement with a session reference", setup: []string{"SET pgequiv.reference = '" + countStar + "'"},
			sql: countOwner + "; SELECT 2", code: SQLStateNotEquivalent, msg: "statement 2 of 2: not_equivalent"},
		{name: "multi-statement hides a write", setup: []string{"SET pgequiv.reference = '" + countStar + "'"},
			sql: countOwner + "; " + ins(9101), code: SQLStateUnverified, msg: "statement 2 of 2: cannot judge: not judged: INSERT has side effects", absent: gone(9101)},
		{name: "multi-statement: a trailing tag belongs to its statement",
			sql: ins(9102) + "; " + wrongCount + " " + tagRef(countStar), code: SQLStateUnverified, msg: "statement 1 of 2: cannot judge: not judged: INSERT (untagged, beside tagged statement 2)", absent: gone(9102)},
		{name: "E string", sql: "SELECT count(*), 1 FROM owners WHERE first_name <> E'O\\'Brien' " + tagRef(ownersRef),
			code: SQLStateNotEquivalent, msg: "not_equivalent"},
		{name: "standard_conforming_strings off", setup: []string{"SET standard_conforming_strings = off"},
			sql:  "SELECT count(*), 1 FROM owners WHERE first_name <> 'O\\'Brien' " + tagRef(ownersRef),
			code: SQLStateNotEquivalent, msg: "not_equivalent"},
		{name: "standard_conforming_strings off, write", setup: []string{"SET standard_conforming_strings = off"},
			sql:  "INSERT INTO owners (owner_id, first_name, last_name) VALUES (9103, 'O\\'Brien', 'x') " + tagRef(ownersRef),
			code: SQLStateUnverified, msg: "INSERT has side effects", absent: gone(9103)},
		{name: "dollar quote with a non-ASCII tag", sql: "SELECT count(*), $é$it's$é$ FROM dogs WHERE age > 5 " + tagRef(countStar),
			code: SQLStateNotEquivalent, msg: "not_equivalent"},
		{name: "a comment inside a dollar quote is data", setup: []string{"SET pgequiv.reference = 'SELECT count(*) FROM owners WHERE first_name <> $é$  $é$'"},
			sql: "SELECT count(*) FROM owners WHERE first_name <> $é$ /*traceparent='1'*/ $é$", code: SQLStateNotEquivalent, msg: "not_equivalent"},
		{name: "dollar in an identifier", sql: "SELECT count(*), 1 AS a$b$ FROM dogs WHERE age > 5 " + tagRef(countStar),
			code: SQLStateNotEquivalent, msg: "not_equivalent"},
		{name: "nested comment before a query", setup: []string{"SET pgequiv.reference = '" + countStar + "'"},
			sql: "/* /* */ */ " + wrongCount, code: SQLStateNotEquivalent, msg: "not_equivalent"},
		{name: "data-modifying CTE", sql: "WITH d AS (DELETE FROM dogs WHERE dog_id = 2 RETURNING dog_id) SELECT count(*) FROM dogs WHERE age > 5 " + tagRef(countStar),
			code: SQLStateUnverified, msg: "DELETE in a WITH clause has side effects", absent: "SELECT 1 - count(*) FROM dogs WHERE dog_id = 2"},
		{name: "data-modifying CTE with a session reference", setup: []string{"SET pgequiv.reference = '" + countStar + "'"},
			sql:  "WITH i AS (" + ins(9104) + " RETURNING owner_id) SELECT count(*) FROM dogs WHERE age > 5",
			code: SQLStateUnverified, msg: "INSERT in a WITH clause", absent: gone(9104)},
		{name: "DDL", sql: "CREATE TABLE bypass_ddl (a int) " + tagRef(countStar), code: SQLStateUnverified, msg: "DDL (CreateStmt) has side effects",
			absent: "SELECT count(*) FROM pg_class WHERE relname = 'bypass_ddl'"},
		{name: "DO", sql: "DO $$BEGIN " + ins(9105) + "; END$$ " + tagRef(countStar), code: SQLStateUnverified, msg: "DO has side effects", absent: gone(9105)},
		{name: "CALL with a session reference", setup: []string{"SET pgequiv.reference = '" + countStar + "'"},
			sql: "CALL bypass_add(9107)", code: SQLStateUnverified, msg: "CALL has side effects", absent: gone(9107)},
		{name: "EXECUTE with a session reference", setup: []string{"PREPARE bypass_del AS DELETE FROM dogs WHERE dog_id = 2", "SET pgequiv.reference = '" + countStar + "'"},
			sql: "EXECUTE bypass_del", code: SQLStateUnverified, msg: "EXECUTE has side effects", absent: "SELECT 1 - count(*) FROM dogs WHERE dog_id = 2"},
		{name: "CALL", sql: "CALL bypass_add(9106) " + tagRef(countStar), code: SQLStateUnverified, msg: "CALL has side effects", absent: gone(9106)},
		{name: "SELECT INTO", sql: "SELECT * INTO bypass_into FROM dogs " + tagRef("SELECT * FROM dogs"), code: SQLStateUnverified, msg: "SELECT INTO has side effects",
			absent: "SELECT count(*) FROM pg_class WHERE relname = 'bypass_into'"},
		{name: "COPY", sql: "COPY dogs TO STDOUT " + tagRef(countStar), code: SQLStateUnverified, msg: "COPY has side effects"},
		{name: "DELETE with an unknown reference id", sql: "DELETE FROM dogs WHERE dog_id = 2 " + tag.Encode(tag.KV{Key: tag.KeyRefID, Value: "no-such-id"}),
			code: SQLStateUnverified, msg: "DELETE has side effects", absent: "SELECT 1 - count(*) FROM dogs WHERE dog_id = 2"},
		{name: "UPDATE", sql: "UPDATE dogs SET age = 99 WHERE dog_id = 1 " + tagRef(countStar), code: SQLStateUnverified, msg: "UPDATE has side effects",
			absent: "SELECT count(*) FROM dogs WHERE age = 99"},
	}
}

// simpleExec sends sql as one simple Query with pgconn, which (unlike
// pgx.Conn) also sends it with standard_conforming_strings off, and
// returns the first error of any of its results.
func simpleExec(ctx context.Context, conn *pgx.Conn, sql string) error {
	rs, err := conn.PgConn().Exec(ctx, sql).ReadAll()
	if err != nil {
		return err
	}
	for _, r := range rs {
		if r.Err != nil {
			return r.Err
		}
	}
	return nil
}

// bypassSettings are enforce mode with enforce_unknown off (refusals must
// not depend on it) and a refuter budget that a loaded test machine does
// not run out of before it finds the counterexample.
func bypassSettings(t *testing.T) JudgeSettings {
	set := annotateSettings(t)
	set.Mode = ModeEnforce
	set.Options.Refute.Budget = 3 * time.Second
	return set
}

// kennelDirect prepares the procedure CALL uses, in PostgreSQL directly.
func kennelDirect(t *testing.T, ctx context.Context) *pgx.Conn {
	t.Helper()
	setupKennel(t)
	direct, err := pgx.Connect(ctx, dbConnString(pg.Host, pg.Port, pgtest.SuperUser, "", kennelDB))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { direct.Close(context.Background()) })
	if _, err := direct.Exec(ctx, `CREATE OR REPLACE PROCEDURE bypass_add(id int) LANGUAGE sql AS
		$$INSERT INTO owners (owner_id, first_name, last_name) VALUES (id, 'Eve', 'Mallory')$$`); err != nil {
		t.Fatal(err)
	}
	return direct
}

func TestBypassEnforce(t *testing.T) {
	testBypassEnforce(t, bypassCases())
}

// TestBypassStringsGoroutineRelay: standard_conforming_strings is followed
// on the goroutine relay too (TestBypassEnforce's SET goes through the
// fast relay, which reads the ParameterStatus itself).
func TestBypassStringsGoroutineRelay(t *testing.T) {
	var cases []bypassCase
	for _, tc := range bypassCases() {
		if strings.Contains(tc.name, "standard_conforming_strings") {
			cases = append(cases, tc)
		}
	}
	if len(cases) != 2 {
		t.Fatalf("%d cases", len(cases))
	}
	testBypassEnforce(t, cases, func(o *proxy.Options) { o.DisableFastRelay = true })
}

func testBypassEnforce(t *testing.T, cases []bypassCase, edit ...func(*proxy.Options)) {
	e := startJudgeProxy(t, bypassSettings(t), JudgingOptions{}, edit...)
	ctx := testCtx(t, 120*time.Second)
	direct := kennelDirect(t, ctx)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			conn, _ := e.connectNotices(t, ctx, kennelDB)
			for _, s := range tc.setup {
				if err := simpleExec(ctx, conn, s); err != nil {
					t.Fatalf("%s: %v", s, err)
				}
			}
			err := simpleExec(ctx, conn, tc.sql)
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) || pgErr.Code != tc.code || !strings.Contains(pgErr.Message, tc.msg) {
				e.j.Wait()
				t.Fatalf("%s\ngot %v, want SQLSTATE %s with %q\nrecent verdicts: %+v", tc.sql, err, tc.code, tc.msg, e.j.RecentVerdicts())
			}
			if tc.absent != "" {
				var n int
				if err := direct.QueryRow(ctx, tc.absent).Scan(&n); err != nil || n != 0 {
					t.Fatalf("the refused statement's writes happened: %s = %d, %v", tc.absent, n, err)
				}
			}
			// The connection goes on.
			for _, s := range []string{"RESET ALL", "SELECT 7"} {
				if err := simpleExec(ctx, conn, s); err != nil {
					t.Fatalf("after the refusal: %s: %v", s, err)
				}
			}
		})
	}
}

// TestBypassClients: the same refusals reach pgx in the extended protocol
// (Parse is judged as a simple Query is) and COPY FROM STDIN, whose data
// the client sends after the refused Query, writes nothing.
func TestBypassClients(t *testing.T) {
	set := bypassSettings(t)
	e := startJudgeProxy(t, set, JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	direct := kennelDirect(t, ctx)
	conn, _ := e.connectNotices(t, ctx, kennelDB)
	absent := func(q string) {
		t.Helper()
		var n int
		if err := direct.QueryRow(ctx, q).Scan(&n); err != nil || n != 0 {
			t.Fatalf("the refused statement's writes happened: %s = %d, %v", q, n, err)
		}
	}
	var pgErr *pgconn.PgError
	cte := "WITH i AS (INSERT INTO owners (owner_id, first_name, last_name) VALUES ($1, 'Eve', 'Mallory') RETURNING owner_id) " +
		"SELECT count(*) FROM dogs WHERE age > 5 " + tagRef(countStar)
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeExec, pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		_, err := conn.Exec(ctx, cte, mode, 9401)
		if !errors.As(err, &pgErr) || pgErr.Code != SQLStateUnverified || !strings.Contains(pgErr.Message, "INSERT in a WITH clause has side effects") {
			t.Fatalf("%v: %v", mode, err)
		}
		absent(ownerGone + "9401")
	}
	copySQL := "COPY owners (owner_id, first_name, last_name) FROM STDIN " + tagRef(countStar)
	_, err := conn.PgConn().CopyFrom(ctx, strings.NewReader("9402\tEve\tMallory\n"), copySQL)
	if !errors.As(err, &pgErr) || pgErr.Code != SQLStateUnverified || !strings.Contains(pgErr.Message, "COPY has side effects") {
		t.Fatalf("COPY FROM STDIN: %v", err)
	}
	absent(ownerGone + "9402")
	var n int
	if err := conn.QueryRow(ctx, "SELECT 7").Scan(&n); err != nil || n != 7 {
		t.Fatalf("after the refusals: %d, %v", n, err)
	}
	// With enforce_side_effects: forward the same COPY runs, unjudged.
	set.EnforceSideEffects = SideEffectsForward
	if err := e.j.Reload(set); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.PgConn().CopyFrom(ctx, strings.NewReader("9403\tEve\tMallory\n"), copySQL); err != nil {
		t.Fatalf("COPY forwarded: %v", err)
	}
	if _, err := direct.Exec(ctx, "DELETE FROM owners WHERE owner_id = 9403"); err != nil {
		t.Fatal(err)
	}
}

// TestBypassAnnotate: annotate mode tells the truth about the same cases:
// the wrong query's NOTICE is not_equivalent, a side effect's says it was
// not judged, and a multi-statement Query gets one NOTICE per statement.
func TestBypassAnnotate(t *testing.T) {
	set := bypassSettings(t)
	set.Mode = ModeAnnotate
	e := startJudgeProxy(t, set, JudgingOptions{})
	ctx := testCtx(t, 120*time.Second)
	direct := kennelDirect(t, ctx)
	for _, tc := range bypassCases() {
		if tc.absent != "" {
			continue // annotate runs writes; these are enforce's business
		}
		t.Run(tc.name, func(t *testing.T) {
			conn, notices := e.connectNotices(t, ctx, kennelDB)
			for _, s := range tc.setup {
				if err := simpleExec(ctx, conn, s); err != nil {
					t.Fatalf("%s: %v", s, err)
				}
			}
			if err := simpleExec(ctx, conn, tc.sql); err != nil {
				t.Fatal(err)
			}
			ns := strings.Join(notices(), "\n")
			if !strings.Contains(ns, tc.msg) {
				t.Fatalf("notices %q lack %q", ns, tc.msg)
			}
		})
	}
	t.Run("one notice per statement", func(t *testing.T) {
		conn, notices := e.connectNotices(t, ctx, kennelDB)
		sql := countOwner + " " + tagRef(countStar) + "; " + wrongCount + " " + tagRef(countStar) + "; SELECT 3"
		if err := simpleExec(ctx, conn, sql); err != nil {
			t.Fatal(err)
		}
		ns := notices()
		if len(ns) != 2 || !strings.HasPrefix(ns[0], "pgequiv: statement 1 of 3: equivalent") || !strings.HasPrefix(ns[1], "pgequiv: statement 2 of 3: not_equivalent") {
			t.Fatalf("notices %q", ns)
		}
	})
	t.Run("side effects are reported, not judged", func(t *testing.T) {
		conn, notices := e.connectNotices(t, ctx, kennelDB)
		sql := "WITH d AS (DELETE FROM owners WHERE owner_id = 9201 RETURNING owner_id) SELECT count(*) FROM dogs WHERE age > 5 " + tagRef(countStar)
		if err := simpleExec(ctx, conn, sql); err != nil {
			t.Fatal(err)
		}
		if ns := notices(); len(ns) != 1 || !strings.Contains(ns[0], "not judged: DELETE in a WITH clause has side effects") {
			t.Fatalf("notices %q", ns)
		}
	})
	_ = direct
}

// TestBypassMultiStatementRecords: counters and SHOW VERDICTS see every
// judged statement of a refused multi-statement Query, and none of its
// statements ran (psql sends the Query as one simple Query).
func TestBypassMultiStatementRecords(t *testing.T) {
	set := bypassSettings(t)
	e := startJudgeProxy(t, set, JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	direct := kennelDirect(t, ctx)
	psql := clientBin(t, "psql")
	sql := "INSERT INTO owners (owner_id, first_name, last_name) VALUES (9301, 'a', 'b') " + tagRef(countStar) +
		"; " + countOwner + " " + tagRef(countStar)
	cmd := exec.CommandContext(ctx, psql, "-X", "-h", e.Host, "-p", strconv.Itoa(e.Port), "-U", pgtest.SuperUser, "-d", kennelDB, "-c", sql)
	cmd.Env = append(cmd.Environ(), "PGSSLMODE=disable", "PGCONNECT_TIMEOUT=10")
	b, err := cmd.CombinedOutput()
	out := string(b)
	if err == nil || !strings.Contains(out, "statement 1 of 2: cannot judge: not judged: INSERT has side effects") {
		t.Fatalf("psql: %v\n%s", err, out)
	}
	var n int
	if err := direct.QueryRow(ctx, ownerGone+"9301").Scan(&n); err != nil || n != 0 {
		t.Fatalf("INSERT ran: %d, %v", n, err)
	}
	e.j.Wait()
	vs := e.j.RecentVerdicts()
	if len(vs) != 2 || vs[0].Action != "refused" || vs[1].Action != "refused" {
		t.Fatalf("recent verdicts: %+v", vs)
	}
	labels := vs[0].Label + "," + vs[1].Label
	if !strings.Contains(labels, "equivalent") || !strings.Contains(labels, "error") {
		t.Errorf("labels %s", labels)
	}
	if st := statMap(e.j); st["refusals"] != 1 || st["tagged"] != 2 {
		t.Errorf("stats %v", st)
	}
}

// TestBypassPipelinedStrings: a client that pipelines SET
// standard_conforming_strings = off and a tagged statement whose reading
// depends on it gets a refusal: when the Parse arrives the proxy cannot
// know the setting the server will read it with.
func TestBypassPipelinedStrings(t *testing.T) {
	set := bypassSettings(t)
	e := startJudgeProxy(t, set, JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	direct := kennelDirect(t, ctx)
	conn, _ := e.connectNotices(t, ctx, kennelDB)
	ins := "INSERT INTO owners (owner_id, first_name, last_name) SELECT 9501, 'O\\'Brien', 'x' WHERE false " +
		tagRef("SELECT 1")
	for _, sql := range []string{
		"SELECT count(*), 1 FROM owners WHERE first_name <> 'O\\'Brien' " + tagRef("SELECT count(*) FROM owners WHERE first_name <> E'O\\'Brien'"),
		ins, // a write would be refused anyway; the ambiguity is reported first either way
	} {
		p := conn.PgConn().StartPipeline(ctx)
		p.SendQueryParams("SET standard_conforming_strings = off", nil, nil, nil, nil)
		p.SendQueryParams(sql, nil, nil, nil, nil)
		p.SendPipelineSync()
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
		var errs []error
		for i := 0; i < 20; i++ { // 3 results and the sync; bounded in case of a stream of errors
			res, err := p.GetResults()
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if res == nil {
				break
			}
			if rr, ok := res.(*pgconn.ResultReader); ok {
				if _, err := rr.Close(); err != nil {
					errs = append(errs, err)
				}
			}
		}
		if err := p.Close(); err != nil {
			errs = append(errs, err)
		}
		var pgErr *pgconn.PgError
		if len(errs) == 0 || !errors.As(errs[0], &pgErr) || pgErr.Code != SQLStateUnverified ||
			!strings.Contains(pgErr.Message, "standard_conforming_strings on and off") {
			t.Fatalf("%s: errors %v", sql, errs)
		}
		if err := simpleExec(ctx, conn, "RESET standard_conforming_strings"); err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := direct.QueryRow(ctx, ownerGone+"9501").Scan(&n); err != nil || n != 0 {
		t.Fatalf("INSERT ran: %d, %v", n, err)
	}
}

// TestBypassPsqlStrings: psql, with standard_conforming_strings off, gets
// the wrong query and the write refused, and the write did not happen.
func TestBypassPsqlStrings(t *testing.T) {
	set := bypassSettings(t)
	e := startJudgeProxy(t, set, JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	direct := kennelDirect(t, ctx)
	ref := tagRef("SELECT count(*) FROM owners WHERE first_name <> E'O\\'Brien'")
	cmd := exec.CommandContext(ctx, clientBin(t, "psql"), "-X", "-h", e.Host, "-p", strconv.Itoa(e.Port), "-U", pgtest.SuperUser, "-d", kennelDB,
		"-c", "SET standard_conforming_strings = off",
		"-c", "SELECT count(*), 1 FROM owners WHERE first_name <> 'O\\'Brien' "+ref,
		"-c", "INSERT INTO owners (owner_id, first_name, last_name) VALUES (9601, 'O\\'Brien', 'x') "+ref,
		"-c", "SELECT 'still' || ' here'")
	cmd.Env = append(cmd.Environ(), "PGSSLMODE=disable", "PGCONNECT_TIMEOUT=10")
	b, _ := cmd.CombinedOutput()
	out := string(b)
	if strings.Count(out, "ERROR:  pgequiv: query refused") != 2 || !strings.Contains(out, "not_equivalent") ||
		!strings.Contains(out, "INSERT has side effects") || !strings.Contains(out, "still here") {
		t.Fatalf("psql output:\n%s", out)
	}
	var n int
	if err := direct.QueryRow(ctx, ownerGone+"9601").Scan(&n); err != nil || n != 0 {
		t.Fatalf("INSERT ran: %d, %v", n, err)
	}
}

// TestBypassCatalogStrings: an untagged query matched by a catalog entry
// is judged whatever standard_conforming_strings says and however many
// statements share its Query.
func TestBypassCatalogStrings(t *testing.T) {
	set := bypassSettings(t)
	cat, err := tag.ParseCatalog([]byte(`
references:
  - id: not-obrien
    match: SELECT count(*), 1 FROM owners WHERE first_name <> 'x'
    reference: SELECT count(*) FROM owners WHERE first_name <> 'x'
`))
	if err != nil {
		t.Fatal(err)
	}
	set.Catalog = cat
	e := startJudgeProxy(t, set, JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	conn, _ := e.connectNotices(t, ctx, kennelDB)
	for _, tc := range []struct{ setup, sql, msg string }{
		{"", "SELECT count(*), 1 FROM owners WHERE first_name <> E'O\\'Brien'", "not_equivalent"},
		{"", "SELECT 1; SELECT count(*), 1 FROM owners WHERE first_name <> 'a;b'", "statement 2 of 2: not_equivalent"},
		{"SET standard_conforming_strings = off", "SELECT count(*), 1 FROM owners WHERE first_name <> 'O\\'Brien'", "not_equivalent"},
	} {
		if tc.setup != "" {
			if err := simpleExec(ctx, conn, tc.setup); err != nil {
				t.Fatal(err)
			}
		}
		err := simpleExec(ctx, conn, tc.sql)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != SQLStateNotEquivalent || !strings.Contains(pgErr.Message, tc.msg) {
			t.Fatalf("%s: %v", tc.sql, err)
		}
	}
}
