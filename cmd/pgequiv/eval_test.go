package main

import (
	"bytes"
	"context"
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
