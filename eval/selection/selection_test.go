package selection

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/internal/dataset"
	"github.com/pgequiv/pgequiv/internal/shareddata"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

func example(t *testing.T) *catalog.Schema {
	t.Helper()
	s, err := catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func classOf(r Result, i int) int {
	for k, c := range r.Classes {
		if slices.Contains(c.Members, i) {
			return k
		}
	}
	return -1
}

func TestSelect(t *testing.T) {
	s := example(t)
	cases := []struct {
		name       string
		candidates []string
		// same lists groups of candidates that must share a class;
		// apart, pairs that must not.
		same    [][]int
		apart   [][2]int
		chosen  []int // any of these
		dropped []int
	}{
		{
			name: "majority of rewrites wins over a different filter",
			candidates: []string{
				"SELECT name FROM dogs WHERE age > 3",
				"SELECT d.name FROM dogs d WHERE 3 < d.age",
				"SELECT name FROM dogs WHERE age >= 3",
				"SELECT name FROM dogs WHERE NOT (age <= 3)",
			},
			same:   [][]int{{0, 1, 3}},
			apart:  [][2]int{{0, 2}},
			chosen: []int{0, 1, 3},
		},
		{
			name: "unplannable candidates are dropped, not fatal",
			candidates: []string{
				"SELECT COUNT(*) FROM dogs",
				"SELECT FROM WHERE",
				"SELECT COUNT(dog_id) FROM dogs",
				"SELECT nosuchcolumn FROM dogs",
				"SELECT COUNT(name) FROM dogs",
			},
			same:    [][]int{{0, 2}},
			apart:   [][2]int{{0, 4}},
			chosen:  []int{0, 2},
			dropped: []int{1, 3},
		},
		{
			name: "order matters only between ordered candidates",
			candidates: []string{
				"SELECT name FROM dogs ORDER BY age",
				"SELECT name FROM dogs ORDER BY age DESC",
				"SELECT name FROM dogs ORDER BY age ASC",
			},
			same:   [][]int{{0, 2}},
			apart:  [][2]int{{0, 1}},
			chosen: []int{0, 2},
		},
		{
			name: "a join through the foreign key agrees with the plain scan",
			candidates: []string{
				"SELECT d.name FROM dogs d JOIN owners o ON o.owner_id = d.owner_id",
				"SELECT name FROM dogs",
				"SELECT d.name FROM dogs d JOIN owners o ON o.owner_id = d.owner_id WHERE o.city = 'Paris'",
			},
			same:   [][]int{{0, 1}},
			apart:  [][2]int{{1, 2}},
			chosen: []int{0, 1},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Select(context.Background(), s, tc.candidates, Options{Seed: 1, MaxInstances: 100})
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range tc.same {
				for _, i := range g[1:] {
					if classOf(r, i) != classOf(r, g[0]) {
						t.Errorf("#%d and #%d in different classes: %+v", g[0], i, r.Classes)
					}
				}
			}
			for _, p := range tc.apart {
				if classOf(r, p[0]) == classOf(r, p[1]) {
					t.Errorf("#%d and #%d in one class: %+v", p[0], p[1], r.Classes)
				}
				sep := false
				for _, x := range r.Separations {
					a, b := classOf(r, p[0]), classOf(r, p[1])
					if (x.A == a && x.B == b || x.A == b && x.B == a) && x.By == "database" && x.Counterexample != nil {
						sep = true
					}
				}
				if !sep {
					t.Errorf("no database separates #%d and #%d: %+v", p[0], p[1], r.Separations)
				}
			}
			if !slices.Contains(tc.chosen, r.Chosen) {
				t.Errorf("chose #%d, want one of %v; classes %+v", r.Chosen, tc.chosen, r.Classes)
			}
			var dropped []int
			for _, d := range r.Dropped {
				dropped = append(dropped, d.Index)
				if !strings.HasPrefix(d.Reason, "does not plan") {
					t.Errorf("dropped #%d: reason %q", d.Index, d.Reason)
				}
				if classOf(r, d.Index) >= 0 {
					t.Errorf("dropped #%d is in a class", d.Index)
				}
			}
			if !slices.Equal(dropped, tc.dropped) {
				t.Errorf("dropped %v, want %v", dropped, tc.dropped)
			}
		})
	}
}

// A candidate the executor does not model forms its own class unless a
// proof joins it to one.
func TestSelectNotExecuted(t *testing.T) {
	s, err := catalog.LoadDDL("CREATE TABLE t (a integer PRIMARY KEY, b text)", catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	cands := []string{
		"SELECT date(b, '+1 day') FROM t",
		"SELECT date(t.b, '+1 day') FROM t AS t",
		"SELECT b FROM t",
		"SELECT upper(b) || lower(b) FROM t WHERE length(b) > 100",
	}
	r, err := Select(context.Background(), s, cands, Options{Seed: 1, MaxInstances: 50})
	if err != nil {
		t.Fatal(err)
	}
	k := classOf(r, 0)
	if k < 0 || classOf(r, 1) != k || r.Classes[k].Executed {
		t.Fatalf("want #0 and #1 in one unexecuted class (by proof): %+v", r.Classes)
	}
	if !slices.ContainsFunc(r.Classes[k].Why, func(w string) bool { return strings.Contains(w, "proved equivalent") }) {
		t.Errorf("class of #0 does not say it was proved: %q", r.Classes[k].Why)
	}
	if classOf(r, 2) == k {
		t.Errorf("#2 joined the unexecuted class: %+v", r.Classes)
	}
}

func TestSelectNothingPlans(t *testing.T) {
	r, err := Select(context.Background(), example(t), []string{"SELEC 1", "", "SELECT * FROM nowhere"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Chosen != -1 || len(r.Dropped) != 3 || len(r.Classes) != 0 {
		t.Errorf("got chosen %d, dropped %v, classes %v", r.Chosen, r.Dropped, r.Classes)
	}
	r, err = Select(context.Background(), example(t), []string{"SELEC 1", "SELECT COUNT(*) FROM dogs"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Chosen != 1 || len(r.Dropped) != 1 || len(r.Classes) != 1 {
		t.Errorf("one plannable: got chosen %d, dropped %v, classes %v", r.Chosen, r.Dropped, r.Classes)
	}
}

// The budget bounds a group; what ran out is said, and a choice is still
// made from the evidence gathered.
func TestSelectBudget(t *testing.T) {
	s := example(t)
	var cands []string
	for i := range 40 {
		cands = append(cands, "SELECT d.name, o.city FROM dogs d LEFT JOIN owners o ON o.owner_id = d.owner_id WHERE d.age > "+strings.Repeat("1", 1+i%3)+" ORDER BY d.name")
	}
	r, err := Select(context.Background(), s, cands, Options{Budget: 5 * time.Millisecond, MaxInstances: 100000})
	if err != nil {
		t.Fatal(err)
	}
	// How far a 5 ms budget gets depends on the machine; that it is
	// honoured and said does not.
	if len(r.Notes) == 0 {
		t.Errorf("no note on the budget: %+v", r)
	}
	if r.Chosen < 0 {
		for _, d := range r.Dropped {
			if d.Reason != "not planned within the budget" {
				t.Errorf("nothing chosen, and #%d dropped for %q", d.Index, d.Reason)
			}
		}
	}
	if r.Instances >= 100000 {
		t.Errorf("ran all %d databases within 5 ms", r.Instances)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Select(ctx, s, cands, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err %v", err)
	}
}

// TestSelectSpiderGroups is the regression test on real candidates: the
// first mixed groups (a correct and a wrong candidate) of the shared
// Spider pairs, with the reference withheld. The selection must beat a
// random pick clearly and not depend on the order of the candidates.
func TestSelectSpiderGroups(t *testing.T) {
	shared := shareddata.Path(t, "data")
	pairs, err := dataset.ReadPairsFile(filepath.Join(shared, "spider_pair_dev.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var groups []Group
	for _, g := range GroupsFromPairs(pairs) {
		if g.Mixed() {
			groups = append(groups, g)
		}
	}
	if len(groups) != 210 {
		t.Fatalf("%d mixed groups, want 210", len(groups))
	}
	groups = groups[:24]
	opts := Options{Seed: 1, MaxInstances: 60, Budget: 10 * time.Second,
		Judge: equivalence.Options{ColumnOrder: equivalence.ColumnOrderIgnore}}
	var acc, random float64
	for _, g := range groups {
		s, err := catalog.LoadDDL(readSchema(t, filepath.Join(shared, "schemas", g.DB+".sql")), catalog.SQLite)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Select(context.Background(), s, g.Candidates, opts)
		if err != nil {
			t.Fatal(err)
		}
		if r.Chosen < 0 {
			t.Fatalf("group %s: nothing chosen: %+v", g.ID, r)
		}
		acc += float64(g.Labels[r.Chosen])
		random += g.RandomExpectation()
		rev := slices.Clone(g.Candidates)
		slices.Reverse(rev)
		r2, err := Select(context.Background(), s, rev, opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(rev) - 1 - r2.Chosen; rev[r2.Chosen] != g.Candidates[r.Chosen] {
			t.Errorf("group %s: chose #%d, reversed #%d", g.ID, r.Chosen, got)
		}
	}
	n := float64(len(groups))
	t.Logf("accuracy %.3f, random %.3f on %d groups", acc/n, random/n, len(groups))
	if acc/n < random/n+0.1 {
		t.Errorf("accuracy %.3f is not clearly above a random pick's %.3f", acc/n, random/n)
	}
}

func readSchema(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
