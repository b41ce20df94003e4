package selection

import (
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/internal/dataset"
)

func TestReadGroups(t *testing.T) {
	ok := `{"id": "a", "db": "d", "candidates": ["SELECT 1"], "extra": true}

{"db": "d", "dialect": "sqlite", "candidates": ["SELECT 1", "SELECT 2"], "labels": [1, 0]}
`
	gs, err := ReadGroups(strings.NewReader(ok))
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 2 || gs[0].ID != "a" || gs[1].ID != "line-3" || gs[1].Line != 3 || gs[1].Dialect != "sqlite" || len(gs[1].Labels) != 2 {
		t.Errorf("got %+v", gs)
	}
	for _, c := range []struct{ in, want string }{
		{`{"db": "d", "candidates": ["x"]}` + "\nnot json\n", "line 2:"},
		{`{"candidates": ["x"]}`, `line 1: no "db"`},
		{`{"db": "d", "candidates": []}`, `line 1: no "candidates"`},
		{`{"db": "d", "candidates": ["x", "y"], "labels": [1]}`, "line 1: 1 labels for 2 candidates"},
	} {
		if _, err := ReadGroups(strings.NewReader(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want %q", c.in, err, c.want)
		}
	}
}

func TestGroupsFromPairsAndBaselines(t *testing.T) {
	pairs := []dataset.Pair{
		{ID: "1", DB: "d", Reference: "R", Candidate: "SELECT a FROM t", Label: 0},
		{ID: "2", DB: "d", Reference: "R", Candidate: "select a from t;", Label: 0},
		{ID: "3", DB: "e", Reference: "R", Candidate: "SELECT b FROM t", Label: 1},
		{ID: "4", DB: "d", Reference: "R", Candidate: "SELECT b FROM t", Label: 1},
		{ID: "5", DB: "d", Reference: "R2", Candidate: "SELECT b FROM t", Label: 1},
	}
	gs := GroupsFromPairs(pairs)
	if len(gs) != 3 || len(gs[0].Candidates) != 3 || gs[0].ID != "1" || gs[1].DB != "e" {
		t.Fatalf("got %+v", gs)
	}
	g := gs[0]
	if !g.Mixed() || gs[1].Mixed() || gs[2].Mixed() {
		t.Errorf("mixed: %v %v %v", g.Mixed(), gs[1].Mixed(), gs[2].Mixed())
	}
	if r := g.RandomExpectation(); r < 0.33 || r > 0.34 {
		t.Errorf("random %v, want 1/3", r)
	}
	// The two wrong texts are one text up to case, spacing and ";".
	if f := g.MostFrequentExpectation(); f != 0 {
		t.Errorf("most frequent %v, want 0", f)
	}
}
