package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pgequiv/pgequiv/eval/spidereval"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/catalog/tablesjson"
)

type itemLine struct {
	Index int     `json:"index"`
	DB    string  `json:"db_id"`
	Level string  `json:"hardness"`
	Label string  `json:"label"`
	Score float64 `json:"score"`
}

func readJSONLines[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var x T
		if err := json.Unmarshal(sc.Bytes(), &x); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, x)
	}
	return out
}

// Acceptance 1 of issue 12: on the Spider-layout fixture (tables.json, a
// database/ of DDL-only SQLite files, gold.sql, pred.sql; built from the
// shared pairs by TestBuildSpiderFixture), eval --gold/--pred gives the
// JSONL mode's verdicts on the same pairs (pairs.jsonl).
func TestEvalFilesMatchesJSONLMode(t *testing.T) {
	dir := t.TempDir()
	fx := spiderFixture
	run := func(args ...string) string {
		t.Helper()
		// Searches that end by their instance count: both modes must
		// try the same databases, however busy the machine is.
		args = append([]string{"--refute-budget", "1m"}, args...)
		var stdout, stderr bytes.Buffer
		if err := runEval(context.Background(), args, &stdout, &stderr); err != nil {
			t.Fatalf("eval %q: %v\n%s", args, err, stderr.String())
		}
		return stdout.String()
	}
	jsonlOut := filepath.Join(dir, "jsonl.jsonl")
	run("--schemas", sharedSchemas(t), "--out", jsonlOut, "--workers", "2", filepath.Join(fx, "pairs.jsonl"))
	ref := readJSONLines[struct {
		ID      string  `json:"id"`
		Score   float64 `json:"score"`
		Verdict string  `json:"verdict"`
	}](t, jsonlOut)

	tablesOut := filepath.Join(dir, "tables.jsonl")
	summary := run("--gold", filepath.Join(fx, "gold.sql"), "--pred", filepath.Join(fx, "pred.sql"), "--tables", filepath.Join(fx, "tables.json"), "--out", tablesOut, "--workers", "2")
	dbOut := filepath.Join(dir, "db.jsonl")
	run("--gold", filepath.Join(fx, "gold.sql"), "--pred", filepath.Join(fx, "pred.sql"), "--tables", filepath.Join(fx, "tables.json"), "--db-dir", filepath.Join(fx, "database"), "--out", dbOut, "--workers", "2")
	byTables := readJSONLines[itemLine](t, tablesOut)
	byDB := readJSONLines[itemLine](t, dbOut)
	if len(ref) != 48 || len(byTables) != len(ref) || len(byDB) != len(ref) {
		t.Fatalf("items: jsonl %d, tables %d, db-dir %d; want 48 each", len(ref), len(byTables), len(byDB))
	}
	labels := map[string]int{}
	for i, r := range ref {
		labels[r.Verdict]++
		if got := byTables[i]; got.Label != r.Verdict || got.Score != r.Score {
			t.Errorf("item %d (%s): --tables gives %s %g, JSONL mode %s %g", i, r.ID, got.Label, got.Score, r.Verdict, r.Score)
		}
		// The SQLite files hold the shared DDL, except flight_2's, which
		// is Spider's own with the composite key: same labels everywhere,
		// same scores where the DDL is the same.
		got := byDB[i]
		if got.Label != r.Verdict || (got.DB != "flight_2" && got.Score != r.Score) {
			t.Errorf("item %d (%s, %s): --db-dir gives %s %g, JSONL mode %s %g", i, r.ID, got.DB, got.Label, got.Score, r.Verdict, r.Score)
		}
	}
	if labels["equivalent"] == 0 || labels["not_equivalent"] == 0 || labels["unknown"] == 0 {
		t.Errorf("the fixture should exercise every label; got %v", labels)
	}
	for _, want := range []string{"easy", "medium", "hard", "extra", "proved equivalent", "refuted", "mean score"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, summary)
		}
	}
}

// The SQLite file's DDL keeps flights' composite key (Airline, FlightNo),
// which tables.json flattens to Airline alone; with both given, the file
// wins.
func TestEvalFilesCompositeKeyFromSQLite(t *testing.T) {
	tables, err := tablesjson.Read(filepath.Join(spiderFixture, "tables.json"))
	if err != nil {
		t.Fatal(err)
	}
	both := &spidereval.Schemas{Tables: tables, DBDir: filepath.Join(spiderFixture, "database")}
	onlyTables := &spidereval.Schemas{Tables: tables}
	for _, tc := range []struct {
		src        *spidereval.Schemas
		wantKey    []int
		wantSource string
	}{
		{both, []int{0, 1}, spidereval.SourceSQLite},
		{onlyTables, []int{0}, spidereval.SourceTables},
	} {
		s, err := tc.src.Get("flight_2", catalog.SQLite)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Table("flights").PrimaryKey; !reflect.DeepEqual(got, tc.wantKey) {
			t.Errorf("%s: flights key %v, want %v", tc.wantSource, got, tc.wantKey)
		}
		if src, _ := tc.src.Source("flight_2"); src != tc.wantSource {
			t.Errorf("source %q, want %q", src, tc.wantSource)
		}
	}
}

func TestEvalFilesErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tables := filepath.Join(spiderFixture, "tables.json")
	gold := write("gold.sql", "SELECT count(*) FROM singer\tconcert_singer\n\nSELECT count(*) FROM pets\tno_such_db\n")
	twoPreds := write("pred.sql", "SELECT count(*) FROM singer\nSELECT 1\n")
	onePred := write("one.sql", "SELECT count(*) FROM singer\n")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"count mismatch", []string{"--gold", gold, "--pred", onePred, "--tables", tables}, "gold.sql line 3 has no prediction"},
		{"missing db", []string{"--gold", gold, "--pred", twoPreds, "--tables", tables}, `gold.sql line 3: no schema for db "no_such_db"`},
		{"unreadable line", []string{"--gold", write("bad.sql", "SELECT 1\tconcert_singer\nSELECT \xff\tpets_1\n"), "--pred", twoPreds, "--tables", tables}, "bad.sql line 2: not valid UTF-8"},
		{"no tab", []string{"--gold", write("notab.sql", "SELECT 1\n"), "--pred", onePred, "--tables", tables}, "notab.sql line 1: want SQL<TAB>db_id"},
		{"no schema source", []string{"--gold", gold, "--pred", twoPreds}, "needs --pred and at least one of --tables and --db-dir"},
		{"bad format", []string{"--gold", gold, "--pred", twoPreds, "--tables", tables, "--format", "xml"}, `--format "xml"`},
		{"dataset flag in file mode", []string{"--gold", gold, "--pred", twoPreds, "--tables", tables, "--plot", "x.png"}, "--plot does not apply in this mode"},
		{"file flag in dataset mode", []string{"--format", "json", "pairs.jsonl"}, "--format does not apply in this mode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := runEval(context.Background(), tc.args, &stdout, &stderr)
			msg := stderr.String()
			if err != nil {
				msg += err.Error()
			}
			if err == nil || !strings.Contains(msg, tc.want) {
				t.Errorf("eval %q: err %v, stderr %q; want %q", tc.args, err, stderr.String(), tc.want)
			}
		})
	}
}

// check --llm-endpoint asks a local OpenAI-compatible server (started
// here; no model runs on this machine) about an unknown pair and prints
// its opinion; the label stays unknown.
func TestCheckWithLLM(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"choices": [{"message": {"role": "assistant", "content": "{\"verdict\": \"not_equivalent\", \"equivalence\": \"none\", \"reason\": \"different columns\"}"}}]}`)
	}))
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	err := check(context.Background(), []string{"--llm-endpoint", srv.URL + "/v1", "--llm-model", "m", "--llm-samples", "1", "--timeout", "10s", "--refute=false", "SELECT name FROM dogs", "SELECT owner_id FROM dogs"}, nil, &stdout, &stderr)
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 1 {
		t.Fatalf("check: %v (want exit 1)\n%s", err, stderr.String())
	}
	out := stdout.String()
	if !strings.Contains(out, "verdict:     unknown (likely different)") || !strings.Contains(out, "llm:         not_equivalent, 1/1 votes, m: different columns") || requests.Load() != 1 {
		t.Errorf("output after %d requests:\n%s", requests.Load(), out)
	}
}
