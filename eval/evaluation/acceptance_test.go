package evaluation_test

import (
	"context"
	"testing"

	"github.com/pgequiv/pgequiv/eval/evaluation"
	"github.com/pgequiv/pgequiv/internal/dataset"
	"github.com/pgequiv/pgequiv/internal/shareddata"
)

// TestSpiderAcceptance holds the judge to the figures on the
// shared Spider pairs.
func TestSpiderAcceptance(t *testing.T) {
	file := shareddata.Path(t, "data/spider_pair_dev.jsonl")
	pairs, err := dataset.ReadPairsFile(file)
	if err != nil {
		t.Fatal(err)
	}
	results, err := evaluation.Run(context.Background(), pairs, &evaluation.Schemas{Dir: shareddata.Path(t, "data/schemas")}, evaluation.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := evaluation.Summarize(results)
	if err != nil {
		t.Fatal(err)
	}
	c := sum.Confusion
	t.Logf("AUC %.4f precision %.3f recall %.3f", sum.AUC, c.Precision(), c.Recall())
	if c.Precision() < 0.97 {
		t.Errorf("precision of proved labels %.3f < 0.97", c.Precision())
	}
	if c.Recall() < 0.55 {
		t.Errorf("recall of proved labels %.3f < 0.55", c.Recall())
	}
	if sum.AUC < 0.90 {
		t.Errorf("AUC %.4f < 0.90", sum.AUC)
	}
	if len(sum.Failures) > 0 {
		t.Errorf("%d references failed to plan", len(sum.Failures))
	}
}
