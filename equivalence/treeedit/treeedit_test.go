package treeedit

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// parse reads the compact notation used in these tests: a label followed by
// an optional parenthesised, space-separated list of children, e.g.
// "f(d(a c(b)) e)". The empty string is the empty tree.
func parse(t testing.TB, s string) *Node {
	t.Helper()
	if s == "" {
		return nil
	}
	n, rest := parseNode(s)
	if rest != "" {
		t.Fatalf("parse %q: trailing %q", s, rest)
	}
	return n
}

func parseNode(s string) (*Node, string) {
	s = strings.TrimLeft(s, " ")
	end := strings.IndexAny(s, "( )")
	if end < 0 {
		end = len(s)
	}
	n := &Node{Label: s[:end]}
	s = s[end:]
	if !strings.HasPrefix(s, "(") {
		return n, s
	}
	s = s[1:]
	for {
		s = strings.TrimLeft(s, " ")
		if strings.HasPrefix(s, ")") {
			return n, s[1:]
		}
		var ch *Node
		ch, s = parseNode(s)
		n.Children = append(n.Children, ch)
	}
}

func (n *Node) String() string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	n.write(&b)
	return b.String()
}

func (n *Node) write(b *strings.Builder) {
	b.WriteString(n.Label)
	if len(n.Children) == 0 {
		return
	}
	b.WriteByte('(')
	for k, c := range n.Children {
		if k > 0 {
			b.WriteByte(' ')
		}
		c.write(b)
	}
	b.WriteByte(')')
}

var unitCosts = Costs{Insert: 1, Delete: 1, Relabel: 1}

func TestDistanceHandComputed(t *testing.T) {
	tests := []struct {
		name       string
		a, b       string
		unit, dflt int // distance under unitCosts and DefaultCosts
	}{
		// Zhang & Shasha (1989), figure 1: delete c, insert c above d.
		{"zhang-shasha", "f(d(a c(b)) e)", "f(c(d(a b)) e)", 2, 2},
		{"both empty", "", "", 0, 0},
		{"insert all", "", "a(b c)", 3, 3},
		{"delete all", "a(b(c) d)", "", 4, 4},
		{"identical", "a(b(c d) e)", "a(b(c d) e)", 0, 0},
		{"relabel leaf", "a", "b", 1, 2},
		{"swap children", "a(b c)", "a(c b)", 2, 2},
		{"delete middle leaf", "a(b c d)", "a(b d)", 1, 1},
		{"delete inner node", "a(b(c d))", "a(c d)", 1, 1},
		{"insert inner node", "a(c d)", "a(b(c d))", 1, 1},
		{"relabel all", "a(b c)", "x(y z)", 3, 6},
		{"reversed chain", "a(b(c))", "c(b(a))", 2, 4},
		{"leaf to subtree", "a(b)", "a(b(c d))", 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := parse(t, tt.a), parse(t, tt.b)
			unit, err := NewCalculator(unitCosts)
			if err != nil {
				t.Fatal(err)
			}
			if got := unit.Distance(a, b); got != tt.unit {
				t.Errorf("unit costs: Distance(%s, %s) = %d, want %d", tt.a, tt.b, got, tt.unit)
			}
			if got := Distance(a, b); got != tt.dflt {
				t.Errorf("default costs: Distance(%s, %s) = %d, want %d", tt.a, tt.b, got, tt.dflt)
			}
			if got := Distance(b, a); got != tt.dflt {
				t.Errorf("default costs: Distance(%s, %s) = %d, want %d (symmetry)", tt.b, tt.a, got, tt.dflt)
			}
		})
	}
}

func TestSimilarity(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"", "", 1},
		{"a(b c)", "a(b c)", 1},
		{"f(d(a c(b)) e)", "f(c(d(a b)) e)", 1 - 2.0/6},
		{"a(b c d)", "a(b d)", 1 - 1.0/4},
		{"", "a(b c)", 0},
		{"a", "b", -1}, // relabel costs 2 against a size of 1
	}
	const tol = 1e-12
	for _, tt := range tests {
		got := Similarity(parse(t, tt.a), parse(t, tt.b))
		if math.Abs(got-tt.want) > tol {
			t.Errorf("Similarity(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestNewCalculatorRejectsBadCosts(t *testing.T) {
	for _, c := range []Costs{{-1, 1, 1}, {1, -1, 1}, {1, 1, -1}, {MaxCost + 1, 1, 1}, {1, 1, 1 << 40}} {
		if _, err := NewCalculator(c); !errors.Is(err, ErrInvalidCost) {
			t.Errorf("NewCalculator(%+v) error = %v, want ErrInvalidCost", c, err)
		}
	}
	if _, err := NewCalculator(Costs{MaxCost, 0, MaxCost}); err != nil {
		t.Errorf("NewCalculator at the bounds: %v", err)
	}
}

func TestNilChildrenAreSkipped(t *testing.T) {
	a := &Node{Label: "a", Children: []*Node{nil, {Label: "b"}, nil, {Label: "c"}}}
	b := parse(t, "a(b c)")
	if got := Distance(a, b); got != 0 {
		t.Errorf("Distance = %d, want 0", got)
	}
	if got := a.Size(); got != 3 {
		t.Errorf("Size = %d, want 3", got)
	}
}

// naiveForestDist is the recursive definition of forest edit distance
// (Zhang & Shasha, lemma 3 applied to rightmost roots), memoised on the
// forests' printed form. It is exponential without the memo and slow with
// it, and serves only as a reference.
func naiveForestDist(c Costs, f, g []*Node, memo map[string]int) int {
	key := forestKey(f) + "|" + forestKey(g)
	if d, ok := memo[key]; ok {
		return d
	}
	var d int
	switch {
	case len(f) == 0:
		d = forestSize(g) * c.Insert
	case len(g) == 0:
		d = forestSize(f) * c.Delete
	default:
		v, w := f[len(f)-1], g[len(g)-1]
		fRest, gRest := f[:len(f)-1:len(f)-1], g[:len(g)-1:len(g)-1]
		del := naiveForestDist(c, append(fRest, v.Children...), g, memo) + c.Delete
		ins := naiveForestDist(c, f, append(gRest, w.Children...), memo) + c.Insert
		rel := 0
		if v.Label != w.Label {
			rel = c.Relabel
		}
		match := naiveForestDist(c, fRest, gRest, memo) +
			naiveForestDist(c, v.Children, w.Children, memo) + rel
		d = min(del, ins, match)
	}
	memo[key] = d
	return d
}

func forestKey(f []*Node) string {
	parts := make([]string, len(f))
	for k, n := range f {
		parts[k] = n.String()
	}
	return strings.Join(parts, " ")
}

func forestSize(f []*Node) int {
	s := 0
	for _, n := range f {
		s += n.Size()
	}
	return s
}

// randomTree builds a tree of n nodes by attaching each new node to a random
// earlier one, with labels from a small alphabet so that matches are common.
func randomTree(r *rand.Rand, n, alphabet int) *Node {
	if n == 0 {
		return nil
	}
	nodes := make([]*Node, n)
	for k := range nodes {
		nodes[k] = &Node{Label: string(rune('a' + r.IntN(alphabet)))}
		if k > 0 {
			p := nodes[r.IntN(k)]
			p.Children = append(p.Children, nodes[k])
		}
	}
	return nodes[0]
}

func TestDistanceMatchesNaiveReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	costSets := []Costs{unitCosts, DefaultCosts(), {Insert: 1, Delete: 3, Relabel: 1}, {Insert: 2, Delete: 1, Relabel: 5}, {Insert: 0, Delete: 1, Relabel: 1}, {Insert: 1, Delete: 1, Relabel: 0}}
	for _, c := range costSets {
		calc, err := NewCalculator(c)
		if err != nil {
			t.Fatal(err)
		}
		// The reverse-cost calculator checks that d(a, b) with costs (i, d)
		// equals d(b, a) with (d, i).
		rev, err := NewCalculator(Costs{Insert: c.Delete, Delete: c.Insert, Relabel: c.Relabel})
		if err != nil {
			t.Fatal(err)
		}
		for trial := 0; trial < 150; trial++ {
			a := randomTree(r, r.IntN(10), 3)
			b := randomTree(r, r.IntN(10), 3)
			want := naiveForestDist(c, forest(a), forest(b), map[string]int{})
			got := calc.Distance(a, b)
			if got != want {
				t.Fatalf("costs %+v: Distance(%s, %s) = %d, naive reference %d", c, a, b, got, want)
			}
			if back := rev.Distance(b, a); back != want {
				t.Fatalf("costs %+v reversed: Distance(%s, %s) = %d, want %d", c, b, a, back, want)
			}
			if self := calc.Distance(a, a); self != 0 {
				t.Fatalf("Distance(%s, itself) = %d, want 0", a, self)
			}
		}
	}
}

func TestDistanceBalancedMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 10))
	for trial := 0; trial < 20; trial++ {
		a, b := balancedTree(r, 3), balancedTree(r, 1+r.IntN(3))
		want := naiveForestDist(DefaultCosts(), forest(a), forest(b), map[string]int{})
		if got := Distance(a, b); got != want {
			t.Fatalf("Distance(%s, %s) = %d, naive reference %d", a, b, got, want)
		}
	}
}

func forest(n *Node) []*Node {
	if n == nil {
		return nil
	}
	return []*Node{n}
}

func TestDistanceTriangleInequality(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 200; trial++ {
		a, b, c := randomTree(r, 1+r.IntN(15), 4), randomTree(r, 1+r.IntN(15), 4), randomTree(r, 1+r.IntN(15), 4)
		ab, bc, ac := Distance(a, b), Distance(b, c), Distance(a, c)
		if ac > ab+bc {
			t.Fatalf("d(a,c)=%d > d(a,b)+d(b,c)=%d+%d for a=%s b=%s c=%s", ac, ab, bc, a, b, c)
		}
	}
}

func TestDistanceDoesNotAllocateWhenWarm(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	a, b := randomTree(r, 60, 8), randomTree(r, 60, 8)
	calc, err := NewCalculator(DefaultCosts())
	if err != nil {
		t.Fatal(err)
	}
	calc.Distance(a, b)
	if allocs := testing.AllocsPerRun(20, func() { calc.Distance(a, b) }); allocs != 0 {
		t.Errorf("warm Distance allocated %v times per call, want 0", allocs)
	}
}

func BenchmarkDistance(b *testing.B) {
	for _, n := range []int{20, 60, 120} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			r := rand.New(rand.NewPCG(7, uint64(n)))
			t1, t2 := randomTree(r, n, 8), randomTree(r, n, 8)
			calc, err := NewCalculator(DefaultCosts())
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				calc.Distance(t1, t2)
			}
		})
	}
}

// balancedTree builds a complete binary tree of the given depth (2^depth − 1
// nodes), a harder shape for Zhang–Shasha than random trees of the same size
// because it has both many leaves and many keyroots of depth > 0.
func balancedTree(r *rand.Rand, depth int) *Node {
	n := &Node{Label: string(rune('a' + r.IntN(8)))}
	if depth > 1 {
		n.Children = []*Node{balancedTree(r, depth-1), balancedTree(r, depth-1)}
	}
	return n
}

func BenchmarkDistanceBalanced63(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 63))
	t1, t2 := balancedTree(r, 6), balancedTree(r, 6)
	calc, err := NewCalculator(DefaultCosts())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		calc.Distance(t1, t2)
	}
}

// BenchmarkSimilarityPooled measures the package-level entry point, which
// adds a sync.Pool round trip to each call.
func BenchmarkSimilarityPooled(b *testing.B) {
	r := rand.New(rand.NewPCG(8, 60))
	t1, t2 := randomTree(r, 60, 8), randomTree(r, 60, 8)
	b.ReportAllocs()
	for b.Loop() {
		Similarity(t1, t2)
	}
}
