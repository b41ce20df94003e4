package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

func TestRunSelect(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "schemas"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "schemas", "kennel.sql"), []byte(catalog.ExampleDDL()), 0o644); err != nil {
		t.Fatal(err)
	}
	groups := filepath.Join(dir, "groups.jsonl")
	input := `{"id": "old-dogs", "db": "kennel", "candidates": ["SELECT name FROM dogs WHERE age >= 3", "SELECT name FROM dogs WHERE age > 3", "SELECT d.name FROM dogs AS d WHERE 3 < d.age", "SELECT nme FROM dogs"], "labels": [0, 1, 1, 0]}

{"id": "no-schema", "db": "nowhere", "candidates": ["SELECT 1"]}
`
	if err := os.WriteFile(groups, []byte(input), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "sel.jsonl")
	var stdout, stderr bytes.Buffer
	if err := runSelect(context.Background(), []string{"--out", out, "--workers", "1", groups}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, want := range []string{
		"group old-dogs (kennel): 4 candidates, 2 classes",
		"invalid #3: does not plan",
		"classes 0 and 1 differ by database",
		"groups: 2 (errors 1, candidates dropped as unplannable 1, of which invalid 1",
		"accuracy=1.0000 random=0.5000 most_frequent=0.5000 oracle=1 groups=1",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d output lines, want 2:\n%s", len(lines), data)
	}
	var rec selectRecord
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Chosen != 1 && rec.Chosen != 2 || rec.ChosenLabel == nil || *rec.ChosenLabel != 1 || len(rec.Classes) != 2 {
		t.Errorf("record %+v", rec)
	}
	if err := json.Unmarshal([]byte(lines[1]), &rec); err != nil || !strings.Contains(rec.Error, `db "nowhere"`) {
		t.Errorf("second record: %v %+v", err, rec)
	}

	// A malformed line is an error naming the file and the line.
	if err := os.WriteFile(groups, []byte(input+"{\"db\": \"kennel\", \"candidates\": [1]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = runSelect(context.Background(), []string{groups}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "groups.jsonl: line 4") {
		t.Errorf("malformed line: err %v", err)
	}
}

// TestRunSelectDBDir: select reads each group's schema from the real
// database's DDL under --db-dir (Spider's layout), as eval --gold/--pred
// does: flight_2's composite key and foreign keys come from the file.
func TestRunSelectDBDir(t *testing.T) {
	dir := t.TempDir()
	groups := filepath.Join(dir, "groups.jsonl")
	input := `{"id": "aberdeen", "db": "flight_2", "dialect": "sqlite", "candidates": ["SELECT count(*) FROM flights AS f JOIN airports AS a ON f.destairport = a.airportcode WHERE a.city = 'Aberdeen'", "SELECT count(*) FROM flights AS f, 'airports' a WHERE a.city = 'Aberdeen' AND f.destairport = a.airportcode", "SELECT count(*) FROM flights WHERE destairport = 'Aberdeen'"], "labels": [1, 1, 0]}
`
	if err := os.WriteFile(groups, []byte(input), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	args := []string{"--workers", "1", "--db-dir", filepath.Join("testdata", "spider", "database"), groups}
	if err := runSelect(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, want := range []string{"group aberdeen (flight_2): 3 candidates, 2 classes", "groups: 1 (errors 0", "accuracy=1.0000"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
	// Without a schema source for flight_2, the group is an error.
	stdout.Reset()
	if err := runSelect(context.Background(), []string{"--workers", "1", "--db-dir", t.TempDir(), groups}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "groups: 1 (errors 1") {
		t.Errorf("no schema: output\n%s", stdout.String())
	}
}
