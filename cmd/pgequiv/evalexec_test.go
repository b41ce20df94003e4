package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/internal/shareddata"
)

// TestEvalExecute: eval --gold/--pred --execute on the fixture's pairs and
// the shared real Spider databases writes, per item, the official EX
// beside the label (execution.ex), a class on every not_equivalent, and a
// disagreement class exactly where a refuted item is EX-right or a proved
// one EX-wrong; the summary sets EX beside the judge's table. Without
// --db-dir, --execute is a usage error.
func TestEvalExecute(t *testing.T) {
	fx := spiderFixture
	dbDir := shareddata.Path(t, "data/spider_db")
	out := filepath.Join(t.TempDir(), "ex.jsonl")
	args := []string{"--refute-budget", "1m", "--gold", filepath.Join(fx, "gold.sql"), "--pred", filepath.Join(fx, "pred.sql"),
		"--tables", filepath.Join(fx, "tables.json"), "--db-dir", dbDir, "--execute", "--out", out, "--workers", "2"}
	var stdout, stderr bytes.Buffer
	if err := runEval(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("eval %q: %v\n%s", args, err, stderr.String())
	}
	type line struct {
		Index     int      `json:"index"`
		Label     string   `json:"label"`
		Class     []string `json:"class"`
		Execution *struct {
			EX        bool `json:"ex"`
			TestSuite bool `json:"test_suite_ex"`
		} `json:"execution"`
		Disagreement string `json:"disagreement"`
		Why          string `json:"why"`
	}
	lines := readJSONLines[line](t, out)
	if len(lines) != 48 {
		t.Fatalf("%d items, want 48", len(lines))
	}
	refutedRight := 0
	for _, l := range lines {
		if l.Execution == nil {
			t.Fatalf("item %d: no execution", l.Index)
		}
		refuted := l.Label == "not_equivalent"
		if refuted != (len(l.Class) > 0) {
			t.Errorf("item %d: label %s, class %v", l.Index, l.Label, l.Class)
		}
		proved := l.Label == "equivalent" || l.Label == "equivalent_under_assumptions"
		wantDis := (refuted && l.Execution.TestSuite) || (proved && !l.Execution.TestSuite)
		if wantDis != (l.Disagreement != "") || (l.Disagreement != "" && l.Why == "") {
			t.Errorf("item %d: label %s, test-suite EX %v, disagreement %q (%s)", l.Index, l.Label, l.Execution.TestSuite, l.Disagreement, l.Why)
		}
		if refuted && l.Execution.TestSuite {
			refutedRight++
		}
	}
	if refutedRight == 0 {
		t.Error("no refuted item EX calls right: the fixture should exercise a disagreement")
	}
	for _, want := range []string{"execute: ", "EX ", "test-suite EX", "refuted by class:", "judge vs test-suite EX disagreements:", "refuted_ex_correct"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout.String())
		}
	}
	stderr.Reset()
	err := runEval(context.Background(), []string{"--gold", filepath.Join(fx, "gold.sql"), "--pred", filepath.Join(fx, "pred.sql"), "--tables", filepath.Join(fx, "tables.json"), "--execute"}, &bytes.Buffer{}, &stderr)
	var ee exitError
	if !errors.As(err, &ee) || !strings.Contains(stderr.String(), "--execute needs --db-dir") {
		t.Errorf("--execute without --db-dir: %v, %s", err, stderr.String())
	}
}
