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

	"github.com/pgequiv/pgequiv/gmn"
)

func writeTrainData(t *testing.T) (data, schemas string) {
	t.Helper()
	dir := t.TempDir()
	schemas = filepath.Join(dir, "schemas")
	if err := os.Mkdir(schemas, 0o755); err != nil {
		t.Fatal(err)
	}
	ddl := "CREATE TABLE student (stuid numeric, fname text, age numeric, PRIMARY KEY (stuid));"
	var b bytes.Buffer
	n := 0
	for _, db := range []string{"d1", "d2"} {
		if err := os.WriteFile(filepath.Join(schemas, db+".sql"), []byte(ddl), 0o644); err != nil {
			t.Fatal(err)
		}
		for i, c := range []struct {
			cand  string
			label int
		}{
			{"SELECT fname FROM student WHERE 20 < age", 1},
			{"SELECT fname FROM student WHERE age >= 20", 0},
			{"SELECT count(*) FROM student", 0},
			{"SELECT s.fname FROM student s WHERE s.age > 20 ORDER BY s.stuid", 1},
		} {
			n++
			line, _ := json.Marshal(map[string]any{"id": fmt.Sprint(n), "db": db, "dialect": "sqlite",
				"reference": "SELECT fname FROM student WHERE age > 20", "candidate": c.cand, "label": c.label, "i": i})
			b.Write(append(line, '\n'))
		}
	}
	data = filepath.Join(dir, "pairs.jsonl")
	if err := os.WriteFile(data, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return data, schemas
}

func TestRunTrain(t *testing.T) {
	data, schemas := writeTrainData(t)
	dir := t.TempDir()
	out, plot := filepath.Join(dir, "w.bin"), filepath.Join(dir, "c.png")
	var stdout, stderr bytes.Buffer
	err := runTrain(context.Background(), []string{"--data", data, "--schemas", schemas, "--cv", "2", "--epochs", "1",
		"--hidden", "4", "--steps", "1", "--workers", "1", "--out", out, "--plot", plot}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, want := range []string{"fold 1: AUC", "fold 2: AUC", "mean AUC", "final model"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := gmn.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	if m.Config().Hidden != 4 {
		t.Errorf("saved Hidden %d, want 4", m.Config().Hidden)
	}
	if st, err := os.Stat(plot); err != nil || st.Size() == 0 {
		t.Errorf("plot: %v", err)
	}
}

func TestRunTrainBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--encoder", "rnn", "--cv", "5"},
		{}, // nothing to do
		{"--cv", "5", "extra"},
		{"--data", filepath.Join(t.TempDir(), "missing.jsonl"), "--cv", "5"},
	} {
		var stdout, stderr bytes.Buffer
		if err := runTrain(context.Background(), args, &stdout, &stderr); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
