package judging

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

const pgbenchDDL = `
CREATE TABLE pgbench_accounts (aid int NOT NULL PRIMARY KEY, bid int, abalance int, filler char(84));
CREATE TABLE pgbench_branches (bid int NOT NULL PRIMARY KEY, bbalance int, filler char(88));`

// TestPgbenchRandomConstants is acceptance 3 of issue 11: pgbench sends
// one statement with random constants (simple protocol, so each text
// differs); a catalog entry matches it by fingerprint and its reference
// uses $1. Every verdict is equivalent and, after a warm-up, the judge's
// cache serves ≥ 99% of lookups: the shape is judged, not each text.
func TestPgbenchRandomConstants(t *testing.T) {
	ctx := testCtx(t, 240*time.Second)
	const db = "pgbench_shape"
	admin, err := pgx.Connect(ctx, pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+db); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+db); err != nil {
		t.Fatal(err)
	}
	admin.Close(ctx)
	pgbench := clientBin(t, "pgbench")
	env := []string{"PGSSLMODE=disable", "PGCONNECT_TIMEOUT=10"}
	runTool(t, ctx, env, pgbench, "-i", "-s", "1", "-q", "-h", "127.0.0.1", "-p", strconv.Itoa(pg.Port), "-U", pgtest.SuperUser, db)

	schema, err := catalog.LoadDDL(pgbenchDDL, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := tag.ParseCatalog([]byte(`
references:
  - id: balance
    match: SELECT abalance FROM pgbench_accounts WHERE aid = 1
    reference: SELECT a.abalance FROM pgbench_accounts AS a WHERE a.aid = $1
  - id: branch
    match: SELECT bbalance FROM pgbench_branches WHERE bid = 1 AND bbalance > 1
    reference: SELECT b.bbalance FROM pgbench_branches b WHERE $2 < b.bbalance AND b.bid = $1
`))
	if err != nil {
		t.Fatal(err)
	}
	set := JudgeSettings{Mode: ModeAnnotate, VerdictTimeout: 10 * time.Second, Catalog: cat,
		Schemas: SchemaSettings{ByDatabase: map[string]*catalog.Schema{db: schema}}}
	// In-process, and through two judge worker processes (the default
	// judge_isolation), whose cache counters are summed.
	t.Run("in-process", func(t *testing.T) { pgbenchShapes(t, ctx, db, set, JudgingOptions{}, "simple") })
	// The extended protocol: $1 with a bound value, judged as a parameter
	// at each Parse.
	t.Run("extended", func(t *testing.T) { pgbenchShapes(t, ctx, db, set, JudgingOptions{}, "extended") })
	t.Run("workers", func(t *testing.T) {
		pool := startTestJudgePool(t, 2, slog.New(slog.NewTextHandler(io.Discard, nil)))
		pgbenchShapes(t, ctx, db, set, JudgingOptions{Judger: pool}, "simple")
	})
}

func pgbenchShapes(t *testing.T, ctx context.Context, db string, set JudgeSettings, o JudgingOptions, protocol string) {
	pgbench := clientBin(t, "pgbench")
	env := []string{"PGSSLMODE=disable", "PGCONNECT_TIMEOUT=10"}
	e := startJudgeProxy(t, set, o)

	script := filepath.Join(t.TempDir(), "random.sql")
	if err := os.WriteFile(script, []byte(`\set aid random(1, 100000)
\set bid random(1, 1)
\set floor random(-1000000, 1000000)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
SELECT bbalance FROM pgbench_branches WHERE bid = :bid AND bbalance > :floor;
`), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(txs int) {
		out := runTool(t, ctx, env, pgbench, "-n", "-M", protocol, "-f", script, "-c", "2", "-j", "2", "-t", strconv.Itoa(txs),
			"-h", e.Host, "-p", strconv.Itoa(e.Port), "-U", pgtest.SuperUser, db)
		want := "number of transactions actually processed: " + strconv.Itoa(2*txs) + "/" + strconv.Itoa(2*txs)
		if !strings.Contains(out, want) || !strings.Contains(out, "number of failed transactions: 0") {
			t.Fatalf("pgbench output:\n%s", out)
		}
	}
	run(10) // warm-up: the references and shapes are prepared once
	e.j.Wait()
	before := statMap(e.j)
	run(500)
	e.j.Wait()
	after := statMap(e.j)
	d := func(k string) uint64 { return after[k] - before[k] }
	if d("tagged") != 2000 || d("equivalent") != 2000 {
		t.Errorf("tagged %d, equivalent %d; want 2000 each (stats %v)", d("tagged"), d("equivalent"), after)
	}
	hits, misses := d("cache_hits"), d("cache_misses")
	ratio := float64(hits) / float64(hits+misses)
	t.Logf("after warm-up: %d cache hits, %d misses, %d evictions: hit ratio %.4f", hits, misses, d("cache_evictions"), ratio)
	if ratio < 0.99 {
		t.Errorf("cache hit ratio %.4f < 0.99", ratio)
	}
}

// TestJudgeParameterizedReference: a catalog reference with $1 proves a
// fingerprint match whether the application sends constants (simple
// protocol) or parameters (extended protocol: judged as parameterized
// at Parse, which holds for every execution); a constant the reference
// does not admit is not proved equivalent.
func TestJudgeParameterizedReference(t *testing.T) {
	set := annotateSettings(t)
	cat, err := tag.ParseCatalog([]byte(`
references:
  - id: old-dogs
    match: SELECT count(owner_id) FROM dogs WHERE age > 1
    reference: SELECT count(*) FROM dogs WHERE age > $1
  - id: two-ages
    match: SELECT name FROM dogs WHERE age = 1 OR age = 2
    reference: SELECT name FROM dogs WHERE age IN ($1, $1)
`))
	if err != nil {
		t.Fatal(err)
	}
	set.Catalog = cat
	e := startJudgeProxy(t, set, JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	for _, tc := range []struct {
		mode pgx.QueryExecMode
		sql  string
		args []any
		want string
	}{
		{pgx.QueryExecModeSimpleProtocol, "SELECT count(owner_id) FROM dogs WHERE age > 7", nil, "pgequiv: equivalent"},
		{pgx.QueryExecModeSimpleProtocol, "SELECT count(owner_id) FROM dogs WHERE age > 2", nil, "pgequiv: equivalent"},
		{pgx.QueryExecModeCacheStatement, "SELECT count(owner_id) FROM dogs WHERE age > $1", []any{3}, "pgequiv: equivalent"},
		{pgx.QueryExecModeSimpleProtocol, "SELECT name FROM dogs WHERE age = 3 OR age = 3", nil, "pgequiv: equivalent"},
		{pgx.QueryExecModeSimpleProtocol, "SELECT name FROM dogs WHERE age = 3 OR age = 4", nil, ""}, // not proved
	} {
		conn, notices := e.connectNotices(t, ctx, kennelDB)
		args := append([]any{tc.mode}, tc.args...)
		rows, err := conn.Query(ctx, tc.sql, args...)
		if err != nil {
			t.Fatal(err)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		got := notices()
		if len(got) != 1 || tc.want != "" && !strings.HasPrefix(got[0], tc.want) ||
			tc.want == "" && strings.HasPrefix(got[0], "pgequiv: equivalent") {
			t.Errorf("%s (%v): notices %q, want %q", tc.sql, tc.mode, got, tc.want)
		}
	}
}

// BenchmarkAnnotateParameterized measures the p50 latency a query matched
// by a catalog entry with a $1 reference adds in annotate mode, each
// query with another constant (the judge serves the shape from its warm
// cache), in-process and through worker processes:
//
//	go test -run '^$' -bench AnnotateParameterized -benchtime 2000x ./proxy
func BenchmarkAnnotateParameterized(b *testing.B) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	pool := startTestJudgePool(b, 2, quiet)
	set := annotateSettings(b)
	cat, err := tag.ParseCatalog([]byte(`
references:
  - id: old-dogs
    match: SELECT count(owner_id) FROM dogs WHERE age > 1
    reference: SELECT count(*) FROM dogs WHERE age > $1
`))
	if err != nil {
		b.Fatal(err)
	}
	set.Catalog = cat
	local := startJudgeProxy(b, set, JudgingOptions{})
	isolated := startJudgeProxy(b, set, JudgingOptions{Judger: pool})
	plain := startJudgeProxy(b, annotateSettings(b), JudgingOptions{})
	ctx := testCtx(b, time.Hour)
	connLocal, noticesLocal := local.connectNotices(b, ctx, kennelDB)
	connIso, noticesIso := isolated.connectNotices(b, ctx, kennelDB)
	connPlain, _ := plain.connectNotices(b, ctx, kennelDB)
	i := 0
	run := func(conn *pgx.Conn) time.Duration {
		i++
		start := time.Now()
		var n int64
		if err := conn.QueryRow(ctx, "SELECT count(owner_id) FROM dogs WHERE age > "+strconv.Itoa(i%1000),
			pgx.QueryExecModeSimpleProtocol).Scan(&n); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	for _, c := range []struct {
		conn    *pgx.Conn
		notices func() []string
	}{{connLocal, noticesLocal}, {connIso, noticesIso}} {
		run(c.conn)
		if ns := c.notices(); len(ns) != 1 || !strings.HasPrefix(ns[0], equivNotice) {
			b.Fatalf("notices %q", ns)
		}
	}
	var lu, ll, li []time.Duration
	for b.Loop() {
		lu = append(lu, run(connPlain))
		ll = append(ll, run(connLocal))
		li = append(li, run(connIso))
	}
	p50 := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Nanoseconds()) / 1e3
	}
	u, l, iso := p50(lu), p50(ll), p50(li)
	b.ReportMetric(u, "untagged-p50-µs")
	b.ReportMetric(l-u, "added-none-p50-µs")
	b.ReportMetric(iso-u, "added-process-p50-µs")
	b.ReportMetric(0, "ns/op")
}
