package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// eval --gmn-scores rescores every pair with given GMN similarities (as
// from `train --cv --oof`) and --folds reports AUC per db-grouped fold.
func TestRunEvalWithGMNScores(t *testing.T) {
	data, schemas := writeTrainData(t)
	dir := t.TempDir()
	// Similarities that separate the labels perfectly (ids 1..8, the
	// labels of writeTrainData: 1, 0, 0, 1 per database).
	var b strings.Builder
	for id := 1; id <= 8; id++ {
		s := 0.1
		if id%4 == 1 || id%4 == 0 {
			s = 0.9
		}
		fmt.Fprintf(&b, "{\"id\": \"%d\", \"score\": %g}\n", id, s)
	}
	scores := filepath.Join(dir, "oof.jsonl")
	if err := os.WriteFile(scores, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err := runEval(context.Background(), []string{"--schemas", schemas, "--gmn-scores", scores, "--folds", "2", "--workers", "1", data}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, want := range []string{"ROC AUC 1.0000", "fold 1: AUC 1.0000 (4 pairs)", "fold 2: AUC 1.0000 (4 pairs)", "db-grouped 2-fold mean AUC 1.0000"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}

	// A pair without a score, and a malformed line, are errors that say so.
	if err := os.WriteFile(scores, []byte("{\"id\": \"1\", \"score\": 0.5}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = runEval(context.Background(), []string{"--schemas", schemas, "--gmn-scores", scores, data}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), `no score for pair "2"`) {
		t.Errorf("missing score: err %v", err)
	}
	if err := os.WriteFile(scores, []byte("{\"id\": \"1\", \"score\": 0.5}\nnot json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = runEval(context.Background(), []string{"--schemas", schemas, "--gmn-scores", scores, data}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("malformed line: err %v", err)
	}
}

// eval compares columns up to order by default, as execution-accuracy
// labels do, says so above the summary, and --out carries what each
// counterexample needs; --policy column_order=strict restores the check
// and the proxy's default.
func TestRunEvalColumnOrderAndOutFields(t *testing.T) {
	dir := t.TempDir()
	schemas := filepath.Join(dir, "schemas")
	if err := os.MkdirAll(schemas, 0o755); err != nil {
		t.Fatal(err)
	}
	ddl := "CREATE TABLE t (id numeric PRIMARY KEY, a numeric, b numeric);\n"
	if err := os.WriteFile(filepath.Join(schemas, "db.sql"), []byte(ddl), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "pairs.jsonl")
	pairs := `{"id": "swapped", "db": "db", "reference": "SELECT a, b FROM t", "candidate": "SELECT b, a FROM t", "label": 1, "dialect": "sqlite"}
{"id": "nulls", "db": "db", "reference": "SELECT COUNT(*) FROM t", "candidate": "SELECT COUNT(a) FROM t", "label": 1, "dialect": "sqlite"}
{"id": "filter", "db": "db", "reference": "SELECT a FROM t", "candidate": "SELECT a FROM t WHERE b > 1", "label": 0, "dialect": "sqlite"}
`
	if err := os.WriteFile(data, []byte(pairs), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(policy ...string) (string, map[string]string) {
		t.Helper()
		out := filepath.Join(dir, "out.jsonl")
		// A search bound by its count, not by a clock a loaded machine
		// slows, so that the COUNT(a) pair is always refuted.
		args := []string{"--gmn=false", "--workers", "1", "--refute-budget", "10s", "--out", out}
		for _, p := range policy {
			args = append(args, "--policy", p)
		}
		var stdout, stderr bytes.Buffer
		if err := runEval(context.Background(), append(args, data), &stdout, &stderr); err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		lines := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var row struct{ ID string }
			if err := json.Unmarshal([]byte(l), &row); err != nil {
				t.Fatalf("--out line %q: %v", l, err)
			}
			lines[row.ID] = l
		}
		return stdout.String(), lines
	}
	stdout, lines := run()
	if !strings.Contains(stdout, "policy: column_order=ignore") {
		t.Errorf("default eval output lacks the policy line:\n%s", stdout)
	}
	if !strings.Contains(lines["swapped"], `"verdict":"equivalent"`) {
		t.Errorf("swapped columns under eval's default: %s", lines["swapped"])
	}
	if want := `"refuted":true,"needs":["a NULL in a nullable column"]`; !strings.Contains(lines["nulls"], want) {
		t.Errorf("COUNT(a) vs COUNT(*): want %s in %s", want, lines["nulls"])
	}
	if !strings.Contains(lines["filter"], `"refuted":true`) || strings.Contains(lines["filter"], "needs") {
		t.Errorf("a filter is refuted on ordinary data: %s", lines["filter"])
	}
	stdout, lines = run("column_order=strict")
	if !strings.Contains(stdout, "policy: column_order=strict") {
		t.Errorf("strict eval output lacks the policy line:\n%s", stdout)
	}
	if !strings.Contains(lines["swapped"], `"column_order_only":true`) {
		t.Errorf("swapped columns under strict: %s", lines["swapped"])
	}
}

// TestRunEvalParameterizeCandidate: --parameterize-candidate judges each
// candidate with its literals replaced by $n, says how many, and marks
// the rows; a candidate whose literal became $1 is refuted (any other
// value of $1 tells it apart), one without literals is judged as it is.
func TestRunEvalParameterizeCandidate(t *testing.T) {
	dir := t.TempDir()
	schemas := filepath.Join(dir, "schemas")
	if err := os.MkdirAll(schemas, 0o755); err != nil {
		t.Fatal(err)
	}
	ddl := "CREATE TABLE t (id numeric PRIMARY KEY, a numeric, b numeric);\n"
	if err := os.WriteFile(filepath.Join(schemas, "db.sql"), []byte(ddl), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "pairs.jsonl")
	pairs := `{"id": "literal", "db": "db", "reference": "SELECT a FROM t WHERE b > 1", "candidate": "SELECT a FROM t WHERE b > 1", "label": 1, "dialect": "sqlite"}
{"id": "none", "db": "db", "reference": "SELECT a FROM t", "candidate": "SELECT a FROM t", "label": 1, "dialect": "sqlite"}
{"id": "differ", "db": "db", "reference": "SELECT a FROM t", "candidate": "SELECT b FROM t", "label": 0, "dialect": "sqlite"}
`
	if err := os.WriteFile(data, []byte(pairs), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.jsonl")
	var stdout, stderr bytes.Buffer
	args := []string{"--gmn=false", "--workers", "1", "--refute-budget", "10s", "--parameterize-candidate", "--out", out, data}
	if err := runEval(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "parameterized candidates: 1 of 3 (1 literals replaced by $n)") {
		t.Errorf("eval output:\n%s", stdout.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"refuted":true`) || !strings.Contains(lines[0], `"params":1`) ||
		strings.Contains(lines[1], "params") || !strings.Contains(lines[1], `"verdict":"equivalent"`) {
		t.Errorf("--out rows:\n%s", b)
	}
}

// eval DATASET.jsonl --db-dir reads each database's real DDL, skips (and
// names) the pairs of a database it has no schema for, and prints every
// outcome; a file whose pairs all carry one label prints its summary
// without an AUC and exits 0.
func TestRunEvalDatasetDBDirAndOneClass(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "spider", "pairs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	extra := `{"id":"orphan","db":"no_such_db","dialect":"sqlite","reference":"SELECT 1","candidate":"SELECT 1","label":1}` + "\n"
	data := filepath.Join(dir, "pairs.jsonl")
	if err := os.WriteFile(data, append(src, extra...), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err = runEval(context.Background(), []string{"--db-dir", filepath.Join("testdata", "spider", "database"), "--gmn=false", "--workers", "1", data}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, want := range []string{"skipped: 1 pairs of db no_such_db", "pairs: 48 ", "verdicts: equivalent ", "ROC AUC 0."} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}

	// One class: only the label-1 pairs.
	var ones []string
	for _, line := range strings.Split(string(src), "\n") {
		if strings.Contains(line, `"label":1`) {
			ones = append(ones, line)
		}
	}
	if len(ones) < 2 {
		t.Fatalf("testdata has %d label-1 pairs", len(ones))
	}
	if err := os.WriteFile(data, []byte(strings.Join(ones, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	err = runEval(context.Background(), []string{"--db-dir", filepath.Join("testdata", "spider", "database"), "--gmn=false", "--workers", "1", "--plot", filepath.Join(dir, "roc.png"), data}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("one-class file: %v\n%s", err, stderr.String())
	}
	for _, want := range []string{fmt.Sprintf("pairs: %d ", len(ones)), "ROC AUC n/a", "refuted (counterexample found)", "verdicts: equivalent "} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("one-class output lacks %q:\n%s", want, stdout.String())
		}
	}
	if !strings.Contains(stderr.String(), "no ROC curve") {
		t.Errorf("--plot on one class says nothing: %s", stderr.String())
	}
}
