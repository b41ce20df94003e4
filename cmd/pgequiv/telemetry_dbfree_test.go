package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestTelemetryDatabaseFree: database-free mode exports what relay mode
// does (verdicts by label, judge latency, connections, judge events and
// worker events) to a real Prometheus, and has the admin console. The
// shipped dashboard's expressions (but the relay's own) return data, and
// its judge latency p50 and p99 are within one bucket of the latencies
// the admin console's SHOW VERDICTS lists (acceptance 1, database-free).
func TestTelemetryDatabaseFree(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cfg := "listen: 127.0.0.1:0\nupstream: none\nlog_level: error\nshutdown_timeout: 5s\n" +
		"metrics_listen: 127.0.0.1:0\nadmin:\n  users: [ops]\n  auth: trust\n  recent_verdicts: 1000\n"
	if err := os.WriteFile(filepath.Join(dir, "proxy.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	port, metricsAddr := startServeTelemetry(t, ctx, filepath.Join(dir, "proxy.yaml"), func(string) string { return "" })
	prom := startPrometheus(t, ctx, dir, metricsAddr)
	waitPromData(t, ctx, prom, `up{job="pgequiv"} == 1`, 1)

	conn, err := pgx.Connect(ctx, fmt.Sprintf("host=127.0.0.1 port=%d user=app dbname=pgequiv sslmode=disable", port))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// Judgements of several costs: cached proofs (tens of microseconds),
	// refutations and a search for a counterexample (milliseconds).
	pairs := [][2]string{
		{"SELECT COUNT(*) FROM dogs", "SELECT COUNT(owner_id) FROM dogs"},
		{"SELECT name FROM dogs WHERE age > 7", "SELECT name FROM dogs WHERE age > 5"},
		{"SELECT name FROM dogs", "SELECT name FROM dogs WHERE 1 = 1"},
		{"SELECT owner_id, count(*) FROM dogs GROUP BY owner_id", "SELECT owner_id, count(name) FROM dogs GROUP BY owner_id"},
	}
	// The first judgement of each label gives birth to its series;
	// Prometheus's rates count only what comes after it has seen them.
	n := 0
	for _, p := range pairs[:2] {
		if _, err := conn.Exec(ctx, "SELECT label FROM pgequiv.check($1, $2)", p[0], p[1]); err != nil {
			t.Fatal(err)
		}
		n++
	}
	waitPromData(t, ctx, prom, `pgequiv_judge_duration_seconds_count`, 2)
	const rounds = 75
	for i := 0; i < rounds; i++ {
		for _, p := range pairs {
			var label string
			if err := conn.QueryRow(ctx, "SELECT label FROM pgequiv.check($1, $2)", p[0], p[1]).Scan(&label); err != nil {
				t.Fatalf("%v: %v", p, err)
			}
			n++
		}
	}
	// A tagged query counts under its catalog-free reference too.
	var label string
	if err := conn.QueryRow(ctx, "SELECT count(name) FROM dogs /*pgequiv_ref='SELECT%20count(*)%20FROM%20dogs'*/").Scan(&label, new(any), new(any), new(any), new(any), new(any)); err != nil {
		t.Fatal(err)
	}
	n++

	waitPromData(t, ctx, prom, fmt.Sprintf(`sum(pgequiv_judge_duration_seconds_count) >= %d`, n), 1)
	waitPromData(t, ctx, prom, fmt.Sprintf(`sum(pgequiv_verdicts_total{mode="answer"}) >= %d`, n), 1)
	waitPromData(t, ctx, prom, `pgequiv_verdicts_total{label="not_equivalent"}`, 1)
	waitPromData(t, ctx, prom, `pgequiv_connections{state="active"} >= 1`, 1)
	waitPromData(t, ctx, prom, `pgequiv_judge_events_total{event="tagged"} >= 1`, 1)
	waitPromData(t, ctx, prom, `pgequiv_judge_worker_events_total`, 1)

	latencies, listed := adminLatencies(t, ctx, port, "ops", "pgequiv_admin")
	if listed != n {
		t.Fatalf("SHOW VERDICTS lists %d judgements, want %d", listed, n)
	}
	checkDashboardQuantiles(t, prom, latencies)

	exported := scrape(t, ctx, metricsAddr)
	for _, p := range dashboardExprs(t) {
		if strings.Contains(p.expr, "pgequiv_relay_") {
			continue // nothing is relayed without a database
		}
		for _, name := range regexp.MustCompile(`pgequiv_[a-z_]+`).FindAllString(p.expr, -1) {
			if !exported[name] {
				t.Errorf("dashboard panel %q names %s, which /metrics does not export in database-free mode", p.title, name)
			}
		}
		expr := strings.ReplaceAll(p.expr, "$__rate_interval", "1m")
		waitPromData(t, ctx, prom, expr, 1)
	}

	// The admin console's other statements.
	admin, err := pgx.Connect(ctx, fmt.Sprintf("host=127.0.0.1 port=%d user=ops dbname=pgequiv_admin sslmode=disable", port))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	stats := map[string]int64{}
	rows, _ := admin.Query(ctx, "SHOW STATS", pgx.QueryExecModeSimpleProtocol)
	var name string
	var v int64
	if _, err := pgx.ForEachRow(rows, []any{&name, &v}, func() error { stats[name] = v; return nil }); err != nil {
		t.Fatal(err)
	}
	if stats["tagged"] != int64(n) || stats["not_equivalent"] < rounds {
		t.Errorf("SHOW STATS: %v", stats)
	}
	var key, val string
	found := false
	rows, _ = admin.Query(ctx, "SHOW CONFIG", pgx.QueryExecModeSimpleProtocol)
	if _, err := pgx.ForEachRow(rows, []any{&key, &val}, func() error {
		found = found || key == "upstream.address"
		return nil
	}); err != nil || !found {
		t.Errorf("SHOW CONFIG: %v (upstream.address listed: %v)", err, found)
	}
	if err := admin.QueryRow(ctx, "SHOW CLIENTS", pgx.QueryExecModeSimpleProtocol).Scan(new(any), new(any), new(any), new(any), new(any), new(any), new(any)); err != nil {
		t.Errorf("SHOW CLIENTS: %v", err)
	}
}
