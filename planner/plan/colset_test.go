package plan_test

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// model is the set a ColSet must behave as: ColSet keeps a window of
// words starting at its smallest member's word, so sets whose windows
// start, end or lie apart at different words must still compare and
// combine as plain sets.
type model map[plan.ColumnID]bool

func (m model) ordered() []plan.ColumnID {
	var out []plan.ColumnID
	for id := range m {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

func TestColSetWindows(t *testing.T) {
	tests := []struct {
		name string
		a, b []plan.ColumnID
	}{
		{"empty both", nil, nil},
		{"empty left", nil, []plan.ColumnID{4000}},
		{"empty right", []plan.ColumnID{4000}, nil},
		{"far apart", []plan.ColumnID{1}, []plan.ColumnID{5000}},
		{"right below left", []plan.ColumnID{5000, 5001}, []plan.ColumnID{2, 64}},
		{"overlapping windows", []plan.ColumnID{100, 300, 700}, []plan.ColumnID{300, 900}},
		{"same word", []plan.ColumnID{128, 130}, []plan.ColumnID{129, 130}},
		{"subset across words", []plan.ColumnID{640}, []plan.ColumnID{63, 640, 6400}},
		{"grown downwards", []plan.ColumnID{9000, 3, 4500}, []plan.ColumnID{4500, 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := plan.MakeColSet(tc.a...), plan.MakeColSet(tc.b...)
			ma, mb := model{}, model{}
			for _, id := range tc.a {
				ma[id] = true
			}
			for _, id := range tc.b {
				mb[id] = true
			}
			checkColSet(t, a, b, ma, mb)
		})
	}
}

// TestColSetRandom checks every operation against the model on random
// sets over a wide ID range, including removals that empty the words at
// either end of a window.
func TestColSetRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(35))
	for iter := 0; iter < 500; iter++ {
		var a, b plan.ColSet
		ma, mb := model{}, model{}
		span := []int{70, 700, 7000}[iter%3]
		for i := rng.Intn(12); i > 0; i-- {
			id := plan.ColumnID(rng.Intn(span))
			a.Add(id)
			ma[id] = true
			if rng.Intn(3) == 0 {
				b.Add(id)
				mb[id] = true
			}
		}
		for i := rng.Intn(8); i > 0; i-- {
			id := plan.ColumnID(rng.Intn(span))
			b.Add(id)
			mb[id] = true
		}
		for i := rng.Intn(4); i > 0; i-- {
			id := plan.ColumnID(rng.Intn(span))
			a.Remove(id)
			delete(ma, id)
		}
		checkColSet(t, a, b, ma, mb)
		if t.Failed() {
			t.Fatalf("iteration %d: a %v, b %v", iter, ma.ordered(), mb.ordered())
		}
	}
}

func checkColSet(t *testing.T, a, b plan.ColSet, ma, mb model) {
	t.Helper()
	if !slices.Equal(a.Ordered(), ma.ordered()) || !slices.Equal(b.Ordered(), mb.ordered()) {
		t.Errorf("Ordered = %v, %v; want %v, %v", a.Ordered(), b.Ordered(), ma.ordered(), mb.ordered())
	}
	if a.Len() != len(ma) || a.Empty() != (len(ma) == 0) {
		t.Errorf("Len %d Empty %v for %v", a.Len(), a.Empty(), ma.ordered())
	}
	sub, inter := true, false
	for id := range ma {
		if !mb[id] {
			sub = false
		} else {
			inter = true
		}
	}
	if got := a.SubsetOf(b); got != sub {
		t.Errorf("SubsetOf = %v, want %v", got, sub)
	}
	if got := a.Intersects(b); got != inter || b.Intersects(a) != inter {
		t.Errorf("Intersects = %v, want %v", got, inter)
	}
	if got, want := a.Equals(b), sub && len(ma) == len(mb); got != want {
		t.Errorf("Equals = %v, want %v", got, want)
	}
	for _, id := range []plan.ColumnID{0, 63, 64, 4999, 5000, 9000} {
		if a.Has(id) != ma[id] {
			t.Errorf("Has(%d) = %v", id, a.Has(id))
		}
	}
	u := model{}
	for id := range ma {
		u[id] = true
	}
	for id := range mb {
		u[id] = true
	}
	before := a.Ordered()
	if got := a.Union(b); !slices.Equal(got.Ordered(), u.ordered()) {
		t.Errorf("Union = %v, want %v", got.Ordered(), u.ordered())
	}
	if !slices.Equal(a.Ordered(), before) {
		t.Error("Union changed its receiver")
	}
	c := a.Copy()
	c.UnionWith(b)
	if !slices.Equal(c.Ordered(), u.ordered()) {
		t.Errorf("UnionWith = %v, want %v", c.Ordered(), u.ordered())
	}
	if !slices.Equal(a.Ordered(), before) {
		t.Error("UnionWith on a Copy changed the original")
	}
}

// BenchmarkColSetJoinProps measures the set work of deriving a wide
// join's properties with high column IDs, as a large plan has: each
// predicate's singleton sets, classes grown by union, keys tested by
// subset.
func BenchmarkColSetJoinProps(b *testing.B) {
	const base, cols = 6000, 200
	for i := 0; i < b.N; i++ {
		var notNull plan.ColSet
		classes := make([]plan.ColSet, 0, cols/2)
		for c := plan.ColumnID(0); c < cols; c += 2 {
			notNull.UnionWith(plan.MakeColSet(base+c, base+c+1))
			classes = append(classes, plan.MakeColSet(base+c, base+cols-c))
		}
		n := 0
		for _, k := range classes {
			if k.SubsetOf(notNull) && k.Intersects(notNull) {
				n++
			}
		}
		if n == 0 {
			b.Fatal("no class found")
		}
	}
}
