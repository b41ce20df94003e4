package judging

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/proxy"
)

// adminEnv is a judging proxy with an admin console (password
// console-pw) that has judged two equivalent queries of one shape and
// one not-equivalent query.
func adminEnv(t *testing.T) *judgeEnv {
	t.Helper()
	e := startJudgeProxy(t, annotateSettings(t), JudgingOptions{}, func(o *proxy.Options) {
		o.Admin = &proxy.AdminOptions{Users: []string{pgtest.SuperUser}, Password: "console-pw", Console: &proxy.Console{}}
	})
	e.Options().Admin.Console.(*proxy.Console).Judging = e.j
	ctx := testCtx(t, 60*time.Second)
	conn, _ := e.connectNotices(t, ctx, kennelDB)
	for _, q := range []string{
		withComment(countOwner, countStar),
		withComment(strings.ReplaceAll(countOwner, "dogs", "dogs "), countStar),
		withComment("SELECT name, age FROM dogs", "SELECT name FROM dogs"),
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	e.j.Wait()
	return e
}

// TestAdminConsolePgx: pgx in its default mode (the extended protocol,
// binary results) reads typed columns, filters with a parameter, and
// sees its own connection as admin, not relay.
func TestAdminConsolePgx(t *testing.T) {
	e := adminEnv(t)
	ctx := testCtx(t, 60*time.Second)
	admin, err := pgx.Connect(ctx, dbConnString(e.Host, e.Port, pgtest.SuperUser, "console-pw", "pgequiv"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)

	stats := map[string]int64{}
	rows, _ := admin.Query(ctx, "SHOW STATS")
	var name string
	var value int64
	if _, err := pgx.ForEachRow(rows, []any{&name, &value}, func() error { stats[name] = value; return nil }); err != nil {
		t.Fatal(err)
	}
	if stats["tagged"] != 3 || stats["equivalent"] != 2 || stats["not_equivalent"] != 1 {
		t.Errorf("stats %v", stats)
	}

	tx, err := admin.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rows, _ = tx.Query(ctx, "SHOW VERDICTS WHERE label = $1", "not_equivalent")
	verdicts, err := pgx.CollectRows(rows, pgx.RowToMap)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if len(verdicts) != 1 {
		t.Fatalf("not_equivalent verdicts: %v", verdicts)
	}
	v := verdicts[0]
	if _, ok := v["time"].(time.Time); !ok {
		t.Errorf("time is %T", v["time"])
	}
	if s, ok := v["score"].(float64); !ok || s < 0 || s > 1 {
		t.Errorf("score is %T %v", v["score"], v["score"])
	}
	if _, ok := v["conn"].(int64); !ok {
		t.Errorf("conn is %T", v["conn"])
	}
	// Redaction hides literals, never the verdict's own numbers.
	if sum, _ := v["summary"].(string); !strings.Contains(sum, "(score 0.") || !strings.Contains(sum, "1 vs 2") {
		t.Errorf("summary %q", sum)
	}
	if v["reference"] != "SELECT name FROM dogs" || v["label"] != "not_equivalent" {
		t.Errorf("verdict %v", v)
	}

	// The reference's literals are redacted as the query's are.
	var ref, counterexample string
	if err := admin.QueryRow(ctx, "SHOW VERDICTS WHERE label = 'equivalent' LIMIT 1").Scan(nil, nil, nil, nil, nil, nil, nil, nil,
		nil, nil, nil, nil, nil, nil, &ref, &counterexample); err != nil {
		t.Fatal(err)
	}
	if ref != "SELECT count(*) FROM dogs WHERE age > ?" || counterexample != "" {
		t.Errorf("reference %q, counterexample %q", ref, counterexample)
	}

	var label string
	var count int64
	var first, last time.Time
	if err := admin.QueryRow(ctx, "SHOW DIVERGENCES WHERE label = $1", "equivalent").Scan(nil, nil, nil, &label, &count, &first, &last, nil, nil); err != nil {
		t.Fatal(err)
	}
	if count != 2 || last.Before(first) {
		t.Errorf("divergence %s count %d first %v last %v", label, count, first, last)
	}

	rows, _ = admin.Query(ctx, "SHOW CLIENTS")
	clients, err := pgx.CollectRows(rows, pgx.RowToMap)
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]int{}
	for _, c := range clients {
		states[c["database"].(string)+"/"+c["state"].(string)]++
	}
	if states["pgequiv/admin"] != 1 || states["pgequiv/relay"] != 0 || states[kennelDB+"/relay"] != 1 {
		t.Errorf("clients by database/state: %v", states)
	}

	var pgErr *pgconn.PgError
	if _, err := admin.Exec(ctx, "SHOW VERDICTS WHERE nosuch = 'x'"); !errors.As(err, &pgErr) || pgErr.Code != "42703" {
		t.Errorf("unknown column: %v", err)
	}
	if err := admin.Ping(ctx); err != nil {
		t.Errorf("after an error: %v", err)
	}
}

// TestAdminConsolePsycopg2: psycopg2 in its default mode (BEGIN first).
func TestAdminConsolePsycopg2(t *testing.T) {
	const python = "/usr/bin/python3" // Debian's, with python3-psycopg2
	if out, err := exec.Command(python, "-c", "import psycopg2").CombinedOutput(); err != nil {
		t.Fatalf("python3-psycopg2 missing (run scripts/install-test-deps.sh): %v\n%s", err, out)
	}
	e := adminEnv(t)
	ctx := testCtx(t, 60*time.Second)
	cmd := exec.CommandContext(ctx, python, "../../test/python/admin_console.py")
	cmd.Env = append(os.Environ(), "PGHOST="+e.Host, "PGPORT="+strconv.Itoa(e.Port), "PGUSER="+pgtest.SuperUser, "PGPASSWORD=console-pw")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("psycopg2: %v\n%s", err, out)
	}
	var res struct {
		Stats          map[string]any `json:"stats"`
		StatsValueType string         `json:"stats_value_type"`
		Verdicts       []struct {
			Label, ScoreType, TimeType, Reference string
		} `json:"verdicts"`
		Divergences []struct {
			Label     string `json:"label"`
			Count     int    `json:"count"`
			CountType string `json:"count_type"`
		} `json:"divergences"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if res.Stats["tagged"] != float64(3) || res.StatsValueType != "int" {
		t.Errorf("stats %v (%s)", res.Stats, res.StatsValueType)
	}
	if len(res.Verdicts) != 2 {
		t.Errorf("equivalent verdicts %s", out)
	}
	if len(res.Divergences) != 2 || res.Divergences[0].CountType != "int" {
		t.Errorf("divergences %s", out)
	}
	counts := map[string]int{}
	for _, d := range res.Divergences {
		counts[d.Label] = d.Count
	}
	if counts["equivalent"] != 2 || counts["not_equivalent"] != 1 {
		t.Errorf("divergences %s", out)
	}
	if !strings.Contains(string(out), `"score_type": "float"`) || !strings.Contains(string(out), `"time_type": "datetime"`) {
		t.Errorf("types: %s", out)
	}
}

// TestAdminConsoleNodePostgres: node-postgres, simple and extended
// protocol, in and out of a transaction block.
func TestAdminConsoleNodePostgres(t *testing.T) {
	node := ensureNodeClient(t)
	e := adminEnv(t)
	ctx := testCtx(t, 60*time.Second)
	cmd := exec.CommandContext(ctx, node, "admin.js")
	cmd.Dir = nodeDir
	cmd.Env = append(os.Environ(), "PGHOST="+e.Host, "PGPORT="+strconv.Itoa(e.Port), "PGUSER="+pgtest.SuperUser, "PGPASSWORD=console-pw")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node admin.js: %v\n%s", err, out)
	}
	var res struct {
		Stats       map[string]any `json:"stats"`
		StatsTypes  map[string]int `json:"statsTypes"`
		Verdicts    []map[string]any
		NotEquiv    []string `json:"notEquivalent"`
		Divergences []struct {
			Count       string `json:"count"` // node-postgres reads int8 as a string
			Label       string `json:"label"`
			FirstIsDate bool   `json:"firstIsDate"`
		} `json:"divergences"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if res.Stats["tagged"] != "3" || res.StatsTypes["value"] != 20 {
		t.Errorf("stats %v types %v", res.Stats, res.StatsTypes)
	}
	if len(res.Verdicts) != 3 || res.Verdicts[0]["scoreType"] != "number" || res.Verdicts[0]["timeIsDate"] != true {
		t.Errorf("verdicts %v", res.Verdicts)
	}
	if len(res.NotEquiv) != 1 {
		t.Errorf("filtered verdicts %v", res.NotEquiv)
	}
	if len(res.Divergences) != 1 || res.Divergences[0].Count != "2" || !res.Divergences[0].FirstIsDate {
		t.Errorf("divergences %s", out)
	}
}
