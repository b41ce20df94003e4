package graph

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// path builds a → b → c … of n nodes joined by plan-tree edges.
func path(n int) *Graph {
	g := &Graph{}
	for i := 0; i < n; i++ {
		g.AddNode(Node{Kind: Computing, Type: i % 3})
		if i > 0 {
			if err := g.AddEdge(i-1, i, PlanTree); err != nil {
				panic(err)
			}
		}
	}
	return g
}

func TestRandomWalkReturnKnownValues(t *testing.T) {
	tri := mat.NewDense(3, 3, []float64{0, 1, 1, 1, 0, 1, 1, 1, 0})
	two := mat.NewDense(2, 2, []float64{0, 1, 1, 0})
	star := mat.NewDense(4, 4, []float64{ // centre 0, leaves 1..3
		0, 1, 1, 1,
		1, 0, 0, 0,
		1, 0, 0, 0,
		1, 0, 0, 0,
	})
	iso := mat.NewDense(2, 2, nil)
	cases := []struct {
		name string
		adj  *mat.Dense
		k    int
		want []float64 // row-major n×k
		tol  float64
	}{
		// Two nodes: never back after 1 step, always back after 2.
		{"edge", two, 3, []float64{0, 1, 0, 0, 1, 0}, 1e-15},
		// Triangle: P(back after 2) = 1/2, after 3 = 1/4.
		{"triangle", tri, 3, []float64{0, .5, .25, 0, .5, .25, 0, .5, .25}, 1e-15},
		// Star: the centre always returns in 2 steps; a leaf only with 1/3.
		{"star", star, 2, []float64{0, 1, 0, 1.0 / 3, 0, 1.0 / 3, 0, 1.0 / 3}, 1e-15},
		{"isolated", iso, 2, []float64{0, 0, 0, 0}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := RandomWalkReturn(tc.adj, tc.k)
			for i, w := range tc.want {
				if g := got.RawMatrix().Data[i]; math.Abs(g-w) > tc.tol {
					t.Errorf("entry %d = %g, want %g (tol %g)", i, g, w, tc.tol)
				}
			}
		})
	}
}

func TestPairPositional(t *testing.T) {
	a, b := path(4), path(4)
	pa, pb, err := PairPositional(a, b, []Pair{{3, 3}}, 6)
	if err != nil {
		t.Fatal(err)
	}
	// Identical graphs joined symmetrically get identical encodings.
	if !mat.EqualApprox(pa, pb, 1e-14) {
		t.Errorf("symmetric pair gave different encodings:\n%v\n%v", mat.Formatted(pa), mat.Formatted(pb))
	}
	for _, m := range []*mat.Dense{pa, pb} {
		for _, v := range m.RawMatrix().Data {
			if v < 0 || v > 1 || math.IsNaN(v) {
				t.Fatalf("probability %g out of [0,1]", v)
			}
		}
	}
	// The merged graph is a 6-cycle (roots and tails identified): bipartite,
	// so odd-step returns are 0, and the 2-step return is 1/2 everywhere.
	for v := 0; v < 4; v++ {
		if got := pa.At(v, 0); got != 0 {
			t.Errorf("node %d: 1-step return %g, want 0", v, got)
		}
		if got := pa.At(v, 1); math.Abs(got-0.5) > 1e-15 {
			t.Errorf("node %d: 2-step return %g, want 0.5", v, got)
		}
	}
	// A seed changes the encoding of the path's tail.
	_, pb2, err := PairPositional(a, b, nil, 6)
	if err != nil {
		t.Fatal(err)
	}
	if mat.EqualApprox(pb, pb2, 1e-9) {
		t.Error("seed pair did not change the encoding")
	}
}

func TestPairPositionalErrors(t *testing.T) {
	a := path(3)
	cases := []struct {
		name  string
		a, b  *Graph
		seeds []Pair
		k     int
		want  error
	}{
		{"empty", &Graph{}, a, nil, 2, ErrEmpty},
		{"k", a, a, nil, 0, ErrBadArg},
		{"seed", a, a, []Pair{{0, 7}}, 2, ErrNodeRange},
		{"edge", a, &Graph{Nodes: a.Nodes, Edges: []Edge{{0, 9, PlanTree}}}, nil, 2, ErrNodeRange},
	}
	for _, tc := range cases {
		if _, _, err := PairPositional(tc.a, tc.b, tc.seeds, tc.k); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := path(3)
	cases := []struct {
		name string
		g    *Graph
		want error
	}{
		{"ok", ok, nil},
		{"empty", &Graph{}, ErrEmpty},
		{"root", &Graph{Nodes: ok.Nodes, Root: 5}, ErrNodeRange},
		{"type", &Graph{Nodes: []Node{{Type: 3}}}, ErrTypeID},
		{"kind", &Graph{Nodes: []Node{{Kind: 9}}}, ErrNodeKind},
		{"edge", &Graph{Nodes: ok.Nodes, Edges: []Edge{{0, 3, DataFlow}}}, ErrNodeRange},
		{"edgeType", &Graph{Nodes: ok.Nodes, Edges: []Edge{{0, 1, 7}}}, ErrEdgeType},
	}
	for _, tc := range cases {
		if err := tc.g.Validate(3); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
	if err := ok.AddEdge(0, 3, PlanTree); !errors.Is(err, ErrNodeRange) {
		t.Errorf("AddEdge out of range: %v", err)
	}
}

func TestAugment(t *testing.T) {
	g := path(21)
	g.Nodes[5] = Node{Kind: Content, Type: 1, Text: "kid"}
	rng := rand.New(rand.NewPCG(1, 2))
	d, err := DropNodes(g, 0.1, rng)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Nodes) != 19 { // ⌊0.1·20⌋ = 2 dropped
		t.Errorf("dropped graph has %d nodes, want 19", len(d.Nodes))
	}
	if err := d.Validate(3); err != nil {
		t.Errorf("dropped graph invalid: %v", err)
	}
	if d.Nodes[d.Root] != g.Nodes[g.Root] {
		t.Error("root changed")
	}
	m, err := MaskAttributes(g, 0.1, 2, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for i := range g.Nodes {
		if m.Nodes[i] != g.Nodes[i] {
			changed++
		}
	}
	if changed > 3 || changed == 0 { // ⌈2.1⌉ = 3 masked; some may already have type 2
		t.Errorf("mask changed %d nodes, want 1..3", changed)
	}
	if g.Nodes[5].Text != "kid" {
		t.Error("MaskAttributes modified its input")
	}
	// Same seed, same result.
	d2, _ := DropNodes(g, 0.1, rand.New(rand.NewPCG(1, 2)))
	if len(d2.Edges) != len(d.Edges) {
		t.Error("DropNodes not deterministic for a fixed seed")
	}
}

func TestContentSeeds(t *testing.T) {
	a := &Graph{Nodes: []Node{{Kind: Computing}, {Kind: Content, Type: 1, Text: "t"}, {Kind: Content, Type: 2, Text: "kid"}}}
	b := &Graph{Nodes: []Node{{Kind: Content, Type: 2, Text: "child"}, {Kind: Content, Type: 2, Text: "kid"}, {Kind: Content, Type: 1, Text: "t"}}}
	got := ContentSeeds(a, b)
	want := []Pair{{1, 2}, {2, 1}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("ContentSeeds = %v, want %v", got, want)
	}
}

// The sparse workspace agrees with the dense reference on a random graph
// pair, and allocates nothing once warm.
func TestPosWorkspaceMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	mk := func(n int) *Graph {
		g := &Graph{}
		for i := 0; i < n; i++ {
			g.AddNode(Node{})
			if i > 0 {
				must(t, g.AddEdge(rng.IntN(i), i, PlanTree))
			}
		}
		for e := 0; e < n/2; e++ {
			must(t, g.AddEdge(rng.IntN(n), rng.IntN(n), EdgeType(rng.IntN(3))))
		}
		return g
	}
	a, b := mk(12), mk(9)
	seeds := []Pair{{3, 4}, {5, 4}, {7, 8}}
	const k = 5
	var w PosWorkspace
	got := make([]float64, (12+9)*k)
	if err := w.Pair(got, a, b, seeds, k); err != nil {
		t.Fatal(err)
	}
	// Dense reference: contract by hand with a union-find over 21 vertices.
	parent := make([]int, 21)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(x int) int {
		if parent[x] != x {
			parent[x] = find(parent[x])
		}
		return parent[x]
	}
	join := func(x, y int) { parent[find(x)] = find(y) }
	join(a.Root, 12+b.Root)
	for _, s := range seeds {
		join(s.A, 12+s.B)
	}
	adj := mat.NewDense(21, 21, nil)
	for gi, g := range []*Graph{a, b} {
		for _, e := range g.Edges {
			u, v := find(gi*12+e.From), find(gi*12+e.To)
			if u != v {
				adj.Set(u, v, 1)
				adj.Set(v, u, 1)
			}
		}
	}
	ref := RandomWalkReturn(adj, k) // non-representative rows are isolated; only representatives are read
	const tol = 1e-12
	for v := 0; v < 21; v++ {
		for j := 0; j < k; j++ {
			if d := math.Abs(got[v*k+j] - ref.At(find(v), j)); d > tol {
				t.Errorf("vertex %d step %d: sparse %g dense %g", v, j+1, got[v*k+j], ref.At(find(v), j))
			}
		}
	}
	if n := testing.AllocsPerRun(10, func() { _ = w.Pair(got, a, b, seeds, k) }); n != 0 {
		t.Errorf("warm Pair allocates %v times, want 0", n)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
