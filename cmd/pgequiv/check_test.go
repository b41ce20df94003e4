package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
)

// exitCode is what run makes of a subcommand's error.
func exitCode(err error) int {
	var ee exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.code
	}
	return 2
}

// TestCheckQueryArguments: each query is text, @FILE or - (standard
// input); a missing file, two -, or a NUL byte is a clear error with exit
// status 2.
func TestCheckQueryArguments(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	star := write("star.sql", "SELECT COUNT(*) FROM dogs\n")
	owner := write("owner.sql", "SELECT COUNT(owner_id) FROM dogs")
	// About 200 KB, more than is comfortable in one argument (and cheap
	// to judge, unlike a long IN-list today).
	big := "SELECT dog_id FROM dogs WHERE name = '" + strings.Repeat("x", 200<<10) + "'"
	bigFile := write("big.sql", big)
	nul := write("nul.sql", "SELECT dog_id FROM dogs\x00 WHERE junk")
	missing := filepath.Join(dir, "missing.sql")
	badSchema := write("bad.sql", "CREATE TABLE dogs (\n  id int,\n);\n")

	for _, tc := range []struct {
		name    string
		args    []string
		stdin   string
		code    int
		stdout  string // a substring of standard output
		errText string // a substring of the error
	}{
		{"text", []string{"SELECT COUNT(*) FROM dogs", "SELECT COUNT(owner_id) FROM dogs"}, "", 0, "verdict:     equivalent", ""},
		{"files", []string{"@" + star, "@" + owner}, "", 0, "verdict:     equivalent", ""},
		{"stdin candidate", []string{"@" + star, "-"}, "SELECT COUNT(owner_id) FROM dogs", 0, "verdict:     equivalent", ""},
		{"stdin reference", []string{"-", "SELECT name FROM dogs"}, "SELECT name FROM dogs ORDER BY name", 1, "verdict:     not_equivalent", ""},
		{"large file and stdin", []string{"--timeout", "60s", "@" + bigFile, "-"}, big, 0, "verdict:     equivalent", ""},
		{"both stdin", []string{"-", "-"}, "SELECT 1", 2, "", "only one query can be read from standard input"},
		{"missing file", []string{"@" + missing, "SELECT 1"}, "", 2, "", "reading the reference from @" + missing},
		{"NUL in file", []string{"SELECT dog_id FROM dogs", "@" + nul}, "", 2, "", "the candidate (" + nul + ") contains a NUL byte at offset 23"},
		{"NUL in stdin", []string{"-", "SELECT dog_id FROM dogs"}, "SELECT dog_id FROM dogs\x00 WHERE junk", 2, "", "the reference (standard input) contains a NUL byte at offset 23"},
		{"NUL in text", []string{"SELECT dog_id FROM dogs\x00 WHERE junk", "SELECT dog_id FROM dogs"}, "", 2, "", "the reference contains a NUL byte at offset 23"},
		{"negative timeout", []string{"--timeout", "-1s", "SELECT 1", "SELECT 1"}, "", 2, "", "--timeout must not be negative"},
		// Flags may follow the queries; a query that begins with a
		// comment is still a query.
		{"flags after the queries", []string{"SELECT COUNT(*) FROM dogs", "SELECT COUNT(owner_id) FROM dogs", "--json", "--timeout", "5s"}, "", 0, `"label": "equivalent"`, ""},
		{"flag between the queries", []string{"SELECT name FROM dogs ORDER BY name", "--json", "-- a note\nSELECT name FROM dogs"}, "", 1, `"label": "not_equivalent"`, ""},
		{"schema syntax error", []string{"--schema", badSchema, "SELECT 1", "SELECT 1"}, "", 2, "", badSchema + `:3:1: syntax error at or near ")"`},
		{"one query", []string{"SELECT 1"}, "", 2, "", "missing the CANDIDATE query"},
		{"no query", []string{"--json"}, "", 2, "", "missing the REFERENCE and CANDIDATE queries"},
		{"three queries", []string{"SELECT", "1", "SELECT 1"}, "", 2, "", "3 queries given, check takes two"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := check(context.Background(), tc.args, strings.NewReader(tc.stdin), &stdout, &stderr)
			if code := exitCode(err); code != tc.code {
				t.Fatalf("exit %d (%v), want %d\nstdout: %s\nstderr: %s", code, err, tc.code, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), tc.stdout) {
				t.Errorf("stdout %q lacks %q", stdout.String(), tc.stdout)
			}
			if tc.errText != "" && (err == nil || !strings.Contains(err.Error(), tc.errText)) {
				t.Errorf("error %v, want it to contain %q", err, tc.errText)
			}
		})
	}
}

// nestedScalar is a query with depth nested scalar subqueries (21 s at
// depth 16 before the judge's budget held).
func nestedScalar(depth int) string {
	q := "SELECT age FROM dogs WHERE age = 1"
	for range depth {
		q = "SELECT age FROM dogs WHERE age = (" + q + ")"
	}
	return q
}

// TestCheckTimeout: --timeout bounds the judgement; past it, check exits 2
// with a message naming the budget, within the budget plus a margin.
func TestCheckTimeout(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		ref     string
		cand    string
		mustEnd bool // no verdict can be reached within the budget
	}{
		{"expired at once", time.Nanosecond, "SELECT 1", "SELECT 1", true},
		{"slow pair", 200 * time.Millisecond, nestedScalar(16), nestedScalar(16) + " AND true", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			start := time.Now()
			err := check(context.Background(), []string{"--timeout", tc.timeout.String(), tc.ref, tc.cand}, strings.NewReader(""), &stdout, &stderr)
			elapsed := time.Since(start)
			if limit := tc.timeout + tc.timeout/10 + 200*time.Millisecond; elapsed > limit {
				t.Fatalf("took %v with --timeout %v", elapsed, tc.timeout)
			}
			if errors.Is(err, errNoVerdict) {
				if code := exitCode(err); code != 2 || !strings.Contains(err.Error(), "no verdict within --timeout ("+tc.timeout.String()+")") {
					t.Fatalf("exit %d, %v", code, err)
				}
				return
			}
			if tc.mustEnd || err != nil && exitCode(err) != 1 {
				t.Fatalf("got %v, stdout %q; want the timeout error", err, stdout.String())
			}
		})
	}
}

// TestCheckJSONLists: --json prints every list of the verdict, [] when
// empty (never null or missing), and the score at full precision.
func TestCheckJSONLists(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := check(context.Background(), []string{"--json", "SELECT 1", "SELECT 1"}, strings.NewReader(""), &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	var v map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	for _, key := range []string{"assumptions", "rules", "differences", "notes"} {
		if l, ok := v[key].([]any); !ok || len(l) != 0 {
			t.Errorf("%s = %#v, want []", key, v[key])
		}
	}
	if s, ok := v["score"].(float64); !ok || s == math.Round(s*1000)/1000 {
		t.Errorf("score %v, want full precision", v["score"])
	}
	if v["label"] != "equivalent" || v["timings"] == nil {
		t.Errorf("verdict fields lost: %v", v)
	}
	// cases --json: the same form for each case's verdict.
	b, err := json.Marshal(caseResult{ID: "x", Verdict: equivalence.Verdict{Label: equivalence.Unknown}})
	if err != nil || !strings.Contains(string(b), `"rules":[]`) || !strings.Contains(string(b), `"label":"unknown"`) || !strings.Contains(string(b), `"id":"x"`) {
		t.Errorf("case result JSON %s, %v", b, err)
	}
}
