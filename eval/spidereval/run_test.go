package spidereval

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence"
)

func TestSummarize(t *testing.T) {
	r := func(level string, label equivalence.Label, score float64) Result {
		return Result{Level: level, Verdict: equivalence.Verdict{Label: label, Score: score}}
	}
	results := []Result{
		r(Easy, equivalence.Equivalent, 1),
		r(Easy, equivalence.NotEquivalent, 0),
		r(Hard, equivalence.EquivalentUnderAssumptions, 0.9),
		r(Hard, equivalence.Unknown, 0.5),
		{Level: "challenging", Err: errors.New("gold does not plan")},
	}
	s := Summarize(results)
	var names []string
	for _, l := range s.Levels {
		names = append(names, l.Level)
	}
	if strings.Join(names, ",") != "easy,hard,challenging,all" {
		t.Fatalf("levels %v", names)
	}
	easy, hard, all := s.Levels[0], s.Levels[1], s.Levels[3]
	if easy.Count != 2 || easy.ProvedEquivalent != 0.5 || easy.Refuted != 0.5 || easy.MeanScore != 0.5 {
		t.Errorf("easy %+v", easy)
	}
	if hard.ProvedEquivalent != 0.5 || hard.Equivalent != 0 || hard.Unknown != 0.5 || hard.MeanScore != 0.7 {
		t.Errorf("hard %+v", hard)
	}
	if all.Count != 5 || all.Errors != 1 || all.ProvedEquivalent != 0.4 || all.Refuted != 0.2 {
		t.Errorf("all %+v", all)
	}
	var b bytes.Buffer
	s.Print(&b)
	for _, want := range []string{"count                2            2            1            5", "refuted              0.500        0.000        0.000        0.200", "gold not planned"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := WriteJSONL(&b, results[:1]); err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(b.Bytes(), &rec); err != nil || rec["label"] != "equivalent" || rec["hardness"] != "easy" || rec["verdict"] == nil {
		t.Errorf("JSONL record %s: %v", b.String(), err)
	}
}
