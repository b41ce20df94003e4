package judging

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/internal/sqltext"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// bigLiteral is a string literal of n bytes of SQL.
func bigLiteral(n int) string { return "'" + strings.Repeat("x", n-2) + "'" }

// TestJudgeOversizedStatements: statements over max_query_size are not
// read by the proxy: a tagged one is unknown, "too large to judge", at
// once (enforce refuses it under enforce_unknown; annotate says so), an
// untagged one under a match: catalog is forwarded and counted, and what
// is kept of them (SHOW VERDICTS, divergences, the verdict log) is
// clipped with the full length and a digest.
func TestJudgeOversizedStatements(t *testing.T) {
	const size = 20 << 20
	cat, err := tag.ParseCatalog([]byte(kennelCatalg))
	if err != nil {
		t.Fatal(err)
	}
	set := annotateSettings(t)
	set.Catalog = cat
	set.VerdictTimeout = 2 * time.Second
	e := startJudgeProxy(t, set, JudgingOptions{})
	ctx := testCtx(t, 120*time.Second)
	conn, notices := e.connectNotices(t, ctx, kennelDB)

	big := "SELECT count(owner_id) FROM dogs WHERE age > 1 AND owner_id > 0 AND name <> " + bigLiteral(size)
	tagged := withComment(big, countStar)
	var n int
	if err := conn.QueryRow(ctx, tagged, pgx.QueryExecModeSimpleProtocol).Scan(&n); err != nil || n != 2 {
		t.Fatalf("oversized tagged statement in annotate mode: %d, %v", n, err)
	}
	if ns := notices(); len(ns) != 1 || !strings.Contains(ns[0], "too large to judge") || !strings.Contains(ns[0], "max_query_size") {
		t.Fatalf("annotate notices %q, want one saying too large to judge", ns)
	}
	if err := conn.QueryRow(ctx, big, pgx.QueryExecModeSimpleProtocol).Scan(&n); err != nil || n != 2 {
		t.Fatalf("oversized untagged statement under a match: catalog: %d, %v", n, err)
	}
	if ns := notices(); len(ns) != 0 {
		t.Errorf("untagged oversized statement got notices %q", ns)
	}

	set.Mode, set.EnforceUnknown = ModeEnforce, true
	if err := e.j.Reload(set); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec} {
		_, err := conn.Exec(ctx, tagged, mode)
		var pgErr *pgconn.PgError
		// Under a match: catalog, too large to fingerprint (issue 34, item 6).
		if !errors.As(err, &pgErr) || pgErr.Code != SQLStateUnverified || !strings.Contains(pgErr.Message, "max_query_size") {
			t.Fatalf("%v: oversized tagged statement in enforce mode: %v", mode, err)
		}
	}
	if err := conn.QueryRow(ctx, "SELECT 7").Scan(&n); err != nil || n != 7 {
		t.Fatalf("after refusals: %d, %v", n, err)
	}
	e.j.Wait()

	st := statMap(e.j)
	if st["oversized"] != 4 || st["oversized_unmatched"] != 1 || st["refusals"] != 2 {
		t.Errorf("stats %v", st)
	}
	recs := e.j.RecentVerdicts()
	if len(recs) != 3 {
		t.Fatalf("%d verdicts remembered, want 3", len(recs))
	}
	for _, r := range recs {
		if len(r.Query) > maxStoredSQL+100 || !strings.Contains(r.Query, "clipped: ") || strings.Contains(r.Query, "xxxx") {
			t.Errorf("stored query %.200q (%d bytes): want clipped and redacted", r.Query, len(r.Query))
		}
		// Enforce mode's refusals under the match: catalog are errors
		// (too large to fingerprint), never forwarded.
		if r.Label != "unknown" && !(r.Label == "error" && strings.Contains(r.Summary, "too large to fingerprint")) {
			t.Errorf("verdict %s (%s), want unknown", r.Label, r.Summary)
		}
	}
	for _, d := range e.j.Divergences() {
		if len(d.Example) > maxStoredSQL+100 {
			t.Errorf("divergence example of %d bytes", len(d.Example))
		}
	}
}

// TestOversizedTakesTheStrictestMode: the tag of an oversized statement
// is not read, so it cannot tell which catalog entry it names; with an
// enforce-mode entry in the catalog it is enforced, so that padding a
// statement past max_query_size does not turn enforce into annotate.
func TestOversizedTakesTheStrictestMode(t *testing.T) {
	s, err := catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := tag.ParseCatalog([]byte("references:\n  - id: strict\n    mode: enforce\n    reference: SELECT name FROM dogs\n"))
	if err != nil {
		t.Fatal(err)
	}
	set := JudgeSettings{Mode: ModeAnnotate, EnforceUnknown: true, Catalog: cat, Schemas: SchemaSettings{Default: s},
		Options: equivalence.Options{MaxQueryBytes: 1 << 10}}
	j, err := NewJudging(set, JudgingOptions{Logger: slog.New(slog.DiscardHandler), VerdictLog: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Wait()
	sql := "SELECT name FROM dogs WHERE name <> " + bigLiteral(4<<10) + " /*pgequiv_ref_id='strict'*/"
	v := j.ObserveQuery(context.Background(), &proxy.QueryEvent{Kind: proxy.KindQuery, SQL: []byte(sql), Session: &proxy.Session{}})
	if v.Refuse == nil || v.Refuse.Code != SQLStateUnverified || !strings.Contains(v.Refuse.Message, "too large to judge") {
		t.Fatalf("oversized statement tagged with an enforce-mode id: %+v, want a PGQ02 refusal", v)
	}
	// Without enforce-mode entries, the proxy's annotate mode says so.
	set.Catalog = nil
	if err := j.Reload(set); err != nil {
		t.Fatal(err)
	}
	v = j.ObserveQuery(context.Background(), &proxy.QueryEvent{Kind: proxy.KindQuery, SQL: []byte(sql), Session: &proxy.Session{}})
	if v.Refuse != nil || v.Notice == nil || !strings.Contains(v.Notice.Message, "too large to judge") {
		t.Fatalf("oversized tagged statement in annotate mode: %+v", v)
	}
}

// FuzzContainsFold: the vectorized search agrees with lower-casing and
// searching (ASCII case only, as PostgreSQL folds unquoted names).
func FuzzContainsFold(f *testing.F) {
	for _, s := range []string{"", "pgequiv", "PGEQUIV", "xPgEqUiV", "pgequi", "ppgequiv", "pgequivp", "/*pgequiv_ref='x'*/", "ṔGEQUIV", "pgeq\x00uiv"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lower := []byte(s)
		for i, c := range lower {
			if c >= 'A' && c <= 'Z' {
				lower[i] = c + 'a' - 'A'
			}
		}
		for _, w := range []string{"pgequiv", "p", "discard", "_x"} {
			if got, want := sqltext.ContainsFold([]byte(s), w), strings.Contains(string(lower), w); got != want {
				t.Fatalf("sqltext.ContainsFold(%q, %q) = %v, want %v", s, w, got, want)
			}
		}
	})
}

// TestLargeStatementsKeepVerdictLog: 26 large statements no longer
// rotate every earlier verdict out of verdict_log: each line holds the
// clipped text.
func TestLargeStatementsKeepVerdictLog(t *testing.T) {
	s, err := catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "v.jsonl")
	const maxSize = 1 << 20
	vf, err := OpenVerdictFile(path, maxSize)
	if err != nil {
		t.Fatal(err)
	}
	j, err := NewJudging(JudgeSettings{Mode: ModeLog, Schemas: SchemaSettings{Default: s}},
		JudgingOptions{Logger: slog.New(slog.DiscardHandler), VerdictLog: slog.New(slog.DiscardHandler), VerdictFile: vf})
	if err != nil {
		t.Fatal(err)
	}
	observe := func(sql string) {
		j.ObserveQuery(context.Background(), &proxy.QueryEvent{Kind: proxy.KindQuery, SQL: []byte(sql), Session: &proxy.Session{}})
		j.Wait()
	}
	observe("SELECT count(owner_id) FROM dogs /*pgequiv_ref='SELECT%20count(*)%20FROM%20dogs'*/")
	for range 26 {
		observe("SELECT name FROM dogs WHERE name <> " + bigLiteral(5<<20) + " /*pgequiv_ref='SELECT%20name%20FROM%20dogs'*/")
	}
	vf.Close()
	if _, err := os.Stat(path + ".1"); err == nil {
		t.Errorf("the verdict log rotated after 27 verdicts")
	}
	vf, err = OpenVerdictFile(path, maxSize)
	if err != nil {
		t.Fatal(err)
	}
	defer vf.Close()
	recs, skipped := vf.Loaded()
	if len(recs) != 27 || skipped != 0 || recs[0].Label != "equivalent" {
		t.Fatalf("read back %d verdicts (skipped %d), first %+v", len(recs), skipped, recs[0])
	}
}

// TestBindOversizedValue: a Bind whose values would take the statement
// past max_query_size is not written in and judged in the proxy: it is
// unknown, too large (refused under enforce_unknown), and that verdict is
// not cached for the statement's other values.
func TestBindOversizedValue(t *testing.T) {
	e := startBypassProxy(t, true)
	ctx := testCtx(t, 60*time.Second)
	conn, err := pgx.Connect(ctx, dbConnString(e.Host, e.Port, pgtest.SuperUser, "", bypassDB))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	byBody := withComment("SELECT id FROM notes WHERE body = $1", "SELECT id FROM notes WHERE body = 'O''Brien'")
	var id int
	err = conn.QueryRow(ctx, byBody, strings.Repeat("x", 2<<20)).Scan(&id)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != SQLStateUnverified || !strings.Contains(pgErr.Message, "too large to judge") {
		t.Fatalf("2 MB bound value: %v, want a PGQ02 refusal, too large", err)
	}
	if err := conn.QueryRow(ctx, byBody, "O'Brien").Scan(&id); err != nil || id != 1 {
		t.Fatalf("the same statement with a small value: %d, %v", id, err)
	}
}
