package gmntrain

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/gmn"
	"github.com/pgequiv/pgequiv/internal/dataset"
)

const testDDL = `
CREATE TABLE student (stuid numeric, lname text, fname text, age numeric, sex text, PRIMARY KEY (stuid));
CREATE TABLE has_pet (stuid numeric, petid numeric);
CREATE TABLE pets (petid numeric NOT NULL, pettype text, pet_age numeric, weight numeric, PRIMARY KEY (petid));
`

// testPairs are labelled pairs over three databases with the same schema.
func testPairs() []dataset.Pair {
	refs := []string{
		"SELECT fname FROM student WHERE age > 20 AND sex = 'F'",
		"SELECT count(*) FROM pets WHERE weight > 10",
		"SELECT T1.fname, count(*) FROM student AS T1 JOIN has_pet AS T2 ON T1.stuid = T2.stuid GROUP BY T1.fname ORDER BY count(*) DESC LIMIT 3",
		"SELECT pettype, max(weight) FROM pets GROUP BY pettype",
		"SELECT lname FROM student WHERE stuid IN (SELECT stuid FROM has_pet) UNION SELECT fname FROM student",
	}
	cands := [][2]string{
		{"SELECT s.fname FROM student s WHERE 20 < s.age AND s.sex = 'F'", "SELECT fname FROM student WHERE age >= 20 AND sex = 'F'"},
		{"SELECT count(petid) FROM pets WHERE weight > 10", "SELECT count(*) FROM pets WHERE weight < 10"},
		{"SELECT T1.fname, count(*) AS c FROM student AS T1 JOIN has_pet AS T2 ON T1.stuid = T2.stuid GROUP BY T1.fname ORDER BY c DESC LIMIT 3",
			"SELECT T1.fname, count(*) FROM student AS T1 JOIN has_pet AS T2 ON T1.stuid = T2.stuid GROUP BY T1.fname ORDER BY count(*) ASC LIMIT 3"},
		{"SELECT pettype, max(weight) FROM pets GROUP BY 1", "SELECT pettype, min(weight) FROM pets GROUP BY pettype"},
		{"SELECT lname FROM student WHERE stuid IN (SELECT stuid FROM has_pet) UNION SELECT fname FROM student",
			"SELECT lname FROM student WHERE stuid IN (SELECT stuid FROM has_pet) UNION ALL SELECT fname FROM student"},
	}
	var out []dataset.Pair
	for _, db := range []string{"a", "b", "c"} {
		for i, r := range refs {
			for l, c := range []string{cands[i][1], cands[i][0]} {
				out = append(out, dataset.Pair{ID: db + r + c, DB: db, Reference: r, Candidate: c, Label: l, Dialect: "sqlite"})
			}
		}
	}
	out = append(out, dataset.Pair{ID: "bad", DB: "a", Reference: refs[0], Candidate: "SELECT nope FROM nowhere", Label: 0})
	return out
}

func testCorpus(t testing.TB) *Corpus {
	t.Helper()
	c, err := Plan(context.Background(), testPairs(), func(string) (string, error) { return testDDL, nil })
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestPlanCorpus(t *testing.T) {
	c := testCorpus(t)
	if len(c.Items) != 30 || c.Skipped != 1 {
		t.Fatalf("%d items, %d skipped; want 30, 1", len(c.Items), c.Skipped)
	}
	if got := c.DBs(); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Fatalf("DBs = %v", got)
	}
	// Per db: 5 references + 10 candidates, one candidate the same string
	// as its reference.
	if len(c.Queries) != 3*14 {
		t.Fatalf("%d queries, want 42", len(c.Queries))
	}
	_, err := Plan(context.Background(), testPairs()[:1], func(string) (string, error) { return "", os.ErrNotExist })
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing schema: err = %v", err)
	}
}

func TestFoldsAreDBGrouped(t *testing.T) {
	c := testCorpus(t)
	fold, err := c.Folds(3)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for f := 0; f < 3; f++ {
		train, test, trainQ := c.Split(fold, f)
		if len(train)+len(test) != len(c.Items) || len(test) == 0 {
			t.Fatalf("fold %d: %d + %d items", f, len(train), len(test))
		}
		testDB := map[string]bool{}
		for _, it := range test {
			testDB[it.DB] = true
		}
		for _, it := range train {
			if testDB[it.DB] {
				t.Fatalf("fold %d: db %s on both sides", f, it.DB)
			}
		}
		for _, q := range trainQ {
			if testDB[q.DB] {
				t.Fatalf("fold %d: test db query %s in training queries", f, q.DB)
			}
		}
		seen[fold[test[0].DB]] = true
	}
	if len(seen) != 3 {
		t.Fatalf("folds used: %v", seen)
	}
	if _, err := c.Folds(4); err == nil {
		t.Fatal("4 folds over 3 dbs accepted")
	}
}

func TestSynthesize(t *testing.T) {
	c := testCorpus(t)
	items, counts := Synthesize(c.Queries, SynthOptions{PerQuery: 3}, rand.New(rand.NewPCG(1, 2)))
	if len(items) == 0 {
		t.Fatal("no synthetic pairs")
	}
	sum := 0
	for _, v := range counts {
		sum += v
	}
	if sum != len(items) {
		t.Fatalf("counts sum %d, items %d", sum, len(items))
	}
	equiv := map[string]bool{}
	for _, r := range rewrites {
		equiv[r.name] = r.equiv
	}
	var pos, neg int
	for _, it := range items {
		if reflect.DeepEqual(it.A.G, it.B.G) {
			t.Fatalf("%s: unchanged graph", it.Kind)
		}
		want := 0.0
		if equiv[it.Kind] {
			want = 1
			pos++
		} else {
			neg++
		}
		if it.Label != want {
			t.Fatalf("%s labelled %g", it.Kind, it.Label)
		}
	}
	if pos == 0 || neg == 0 {
		t.Fatalf("%d equivalent, %d not", pos, neg)
	}
	// Deterministic given the seed.
	again, _ := Synthesize(c.Queries, SynthOptions{PerQuery: 3}, rand.New(rand.NewPCG(1, 2)))
	if len(again) != len(items) {
		t.Fatalf("second run %d items, first %d", len(again), len(items))
	}
	for i := range items {
		if items[i].Kind != again[i].Kind || !reflect.DeepEqual(items[i].B.G, again[i].B.G) {
			t.Fatalf("item %d differs between runs", i)
		}
	}
}

func TestRewritesApply(t *testing.T) {
	c := testCorpus(t)
	pools := literalPools(c.Queries)
	for _, rw := range rewrites {
		applied := false
		for _, q := range c.Queries {
			r := newRewriter(q.Plan, rand.New(rand.NewPCG(5, 6)), pools[q.DB])
			before := q.Plan.Canonical()
			if !rw.apply(r) {
				continue
			}
			applied = true
			if q.Plan.Canonical() != before {
				t.Fatalf("%s modified the original plan", rw.name)
			}
			if !rw.equiv && r.p.Canonical() == before {
				t.Errorf("%s on %q left the canonical plan unchanged", rw.name, q.SQL)
			}
		}
		if !applied && rw.name != "set-operation" && rw.name != "count-star-not-null" {
			t.Errorf("%s never applied", rw.name)
		}
	}
}

func TestTransitive(t *testing.T) {
	c := testCorpus(t)
	tr := Transitive(c.Items)
	// Each reference has one equivalent and one other candidate: one
	// "different" pair per reference and db.
	if len(tr) != 15 {
		t.Fatalf("%d transitive pairs, want 15", len(tr))
	}
	for _, it := range tr {
		if it.Label != 0 || it.Kind != "transitive-different" {
			t.Fatalf("%+v", it)
		}
	}
}

func TestFitDeterministic(t *testing.T) {
	c := testCorpus(t)
	opts := Options{Seed: 3, Model: gmn.Config{Hidden: 8, GraphDim: 8, Steps: 2}, Epochs: 2, Batch: 16,
		Pretrain: 2, PretrainBatch: 4, Workers: 2, Synth: SynthOptions{PerQuery: 1}}
	train, test, trainQ := c.Split(map[string]int{"a": 0, "b": 1, "c": 1}, 0)
	m1, h1, err := Fit(context.Background(), train, trainQ, test, opts)
	if err != nil {
		t.Fatal(err)
	}
	m2, h2, err := Fit(context.Background(), train, trainQ, test, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(h1.EpochLoss) != 2 || len(h1.EpochAUC) != 2 || len(h1.PretrainLoss) != 2 {
		t.Fatalf("history %+v", h1)
	}
	if !reflect.DeepEqual(h1.EpochLoss, h2.EpochLoss) || !reflect.DeepEqual(h1.EpochAUC, h2.EpochAUC) {
		t.Fatalf("runs differ: %v %v / %v %v", h1.EpochLoss, h1.EpochAUC, h2.EpochLoss, h2.EpochAUC)
	}
	s1, err := Score(m1, test, 1)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := Score(m2, test, 3)
	if err != nil {
		t.Fatal(err)
	}
	const tol = 0 // same weights, same single-goroutine Score per pair
	for i := range s1 {
		if math.Abs(s1[i]-s2[i]) > tol || !(s1[i] > 0 && s1[i] <= 1) {
			t.Fatalf("score %d: %g vs %g", i, s1[i], s2[i])
		}
	}
	if h1.Counts["real"] != len(train) {
		t.Fatalf("counts %v", h1.Counts)
	}
}

func TestFitCancelled(t *testing.T) {
	c := testCorpus(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := Fit(ctx, c.Items, c.Queries, nil, Options{Model: gmn.Config{Hidden: 4}, Epochs: 1})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestPlotCurves(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.png")
	err := PlotCurves(path, []NamedSeries{{Name: "loss", Y: []float64{1, 0.5}}, {Name: "auc", Panel: 1, Y: []float64{0.6, 0.8}}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
		t.Fatalf("not a PNG: %v", err)
	}
	if err := PlotCurves(path, nil); !errors.Is(err, ErrNoSeries) {
		t.Fatalf("empty: err = %v", err)
	}
}
