package judging

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy"
)

// TestVerdictSummary: the one-line form rounds the score to three
// decimals and redacts only the SQL fragments of the differences, never
// the score or the column counts.
func TestVerdictSummary(t *testing.T) {
	v := equivalence.Verdict{
		Label: equivalence.NotEquivalent, Score: 0.0015022367707395506,
		Differences: []equivalence.Difference{
			{Component: "output columns", Reference: "2", Candidate: "1"},
			{Component: "where", Reference: "(dogs.name = 'Rex')", Candidate: "(dogs.age > 7)"},
		},
	}
	eq := equivalence.Verdict{Label: equivalence.Equivalent, Score: 0.99, Rules: []string{"count-star-not-null"}}
	tests := []struct {
		name   string
		v      equivalence.Verdict
		redact func(string) string
		want   string
	}{
		{"redacted", v, redactLiterals,
			"not_equivalent (score 0.002); differences: output columns: 2 vs 1; where: (dogs.name = ?) vs (dogs.age > ?)"},
		{"literals kept", v, keepText,
			"not_equivalent (score 0.002); differences: output columns: 2 vs 1; where: (dogs.name = 'Rex') vs (dogs.age > 7)"},
		{"equivalent", eq, redactLiterals, "equivalent (score 0.990; rules: count-star-not-null)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := verdictSummary(tt.v, tt.redact); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestJudgingRecordRedactsLiteralsOnly judges a pair in log mode and reads
// what SHOW VERDICTS and the JSON verdict log get: scores and column
// counts as numbers, literals as ?, and empty lists as [] (not null).
func TestJudgingRecordRedactsLiteralsOnly(t *testing.T) {
	s, err := catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	var vlog bytes.Buffer
	j, err := NewJudging(JudgeSettings{Mode: ModeLog, Schemas: SchemaSettings{Default: s}},
		JudgingOptions{Logger: slog.New(slog.DiscardHandler), VerdictLog: slog.New(slog.NewJSONHandler(&vlog, nil))})
	if err != nil {
		t.Fatal(err)
	}
	sql := "SELECT name FROM dogs WHERE name = 'Max' /*pgequiv_ref='SELECT%20name,%20age%20FROM%20dogs%20WHERE%20name%20%3D%20%27Rex%27'*/"
	j.ObserveQuery(context.Background(), &proxy.QueryEvent{Kind: proxy.KindQuery, SQL: []byte(sql), Session: &proxy.Session{}})
	j.Wait()

	recent := j.RecentVerdicts()
	if len(recent) != 1 {
		t.Fatalf("%d verdicts remembered", len(recent))
	}
	sum := recent[0].Summary
	for _, want := range []string{"not_equivalent (score 0.00", "output columns: 2 vs 1"} {
		if !strings.Contains(sum, want) {
			t.Errorf("SHOW VERDICTS summary %q lacks %q", sum, want)
		}
	}
	// 'Rex' and 'Max' are both ?, each with its own mark (issue 20).
	if m := regexp.MustCompile(`\(dogs\.name = \?([a-z]{4})\) vs \(dogs\.name = \?([a-z]{4})\)`).FindStringSubmatch(sum); m == nil || m[1] == m[2] {
		t.Errorf("SHOW VERDICTS summary %q: want two literals redacted with different marks", sum)
	}
	if strings.Contains(sum, "score ?") || strings.Contains(sum, "Rex") || strings.Contains(sum, "Max") {
		t.Errorf("SHOW VERDICTS summary %q: numbers redacted or literals kept", sum)
	}

	var line map[string]any
	if err := json.Unmarshal(vlog.Bytes(), &line); err != nil {
		t.Fatalf("verdict log %q: %v", vlog.String(), err)
	}
	for _, key := range []string{"rules", "assumptions", "differences"} {
		if _, ok := line[key].([]any); !ok {
			t.Errorf("%s = %#v, want a list", key, line[key])
		}
	}
	diffs, _ := json.Marshal(line["differences"])
	if !strings.Contains(string(diffs), "output columns: 2 vs 1") || strings.Contains(string(diffs), "Rex") {
		t.Errorf("logged differences %s", diffs)
	}
	if score, ok := line["score"].(float64); !ok || score <= 0 || score >= 0.01 || score == 0.002 {
		t.Errorf("logged score %v, want full precision", line["score"])
	}
}
