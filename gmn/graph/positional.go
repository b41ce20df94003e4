package graph

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// PairPositional computes random-walk positional encodings on the merged
// pair graph of a and b and returns them split back per graph: pa is
// len(a.Nodes)×k and pb is len(b.Nodes)×k, where column j−1 holds the
// probability that a random walk started at the node is back there after j
// steps, j = 1…k (the diagonal of T^j with T = A·D⁻¹).
//
// The merged graph is the disjoint union of a and b with the two roots
// identified and each seed pair (A in a, B in b) identified too: merged
// nodes are contracted into one vertex, so both members of a pair receive
// the same encoding. Edge directions and types are ignored (A is the
// symmetric 0/1 adjacency, self-loops dropped, parallel edges counted
// once). An isolated vertex has an all-zero row.
func PairPositional(a, b *Graph, seeds []Pair, k int) (pa, pb *mat.Dense, err error) {
	if a == nil || b == nil || len(a.Nodes) == 0 || len(b.Nodes) == 0 {
		return nil, nil, ErrEmpty
	}
	if k <= 0 {
		return nil, nil, fmt.Errorf("%w: k = %d", ErrBadArg, k)
	}
	na, nb := len(a.Nodes), len(b.Nodes)
	if a.Root < 0 || a.Root >= na || b.Root < 0 || b.Root >= nb {
		return nil, nil, fmt.Errorf("%w: root out of range", ErrNodeRange)
	}
	// Union-find over na+nb vertices.
	parent := make([]int, na+nb)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	union := func(x, y int) {
		if rx, ry := find(x), find(y); rx != ry {
			parent[max(rx, ry)] = min(rx, ry)
		}
	}
	union(a.Root, na+b.Root)
	for _, s := range seeds {
		if s.A < 0 || s.A >= na || s.B < 0 || s.B >= nb {
			return nil, nil, fmt.Errorf("%w: seed %d↔%d", ErrNodeRange, s.A, s.B)
		}
		union(s.A, na+s.B)
	}
	class := make([]int, na+nb)
	nc := 0
	id := make(map[int]int)
	for v := range class {
		r := find(v)
		c, ok := id[r]
		if !ok {
			c = nc
			id[r] = c
			nc++
		}
		class[v] = c
	}
	adj := mat.NewDense(nc, nc, nil)
	addEdges := func(g *Graph, off int) error {
		for _, e := range g.Edges {
			if e.From < 0 || e.From >= len(g.Nodes) || e.To < 0 || e.To >= len(g.Nodes) {
				return fmt.Errorf("%w: edge %d→%d", ErrNodeRange, e.From, e.To)
			}
			u, v := class[off+e.From], class[off+e.To]
			if u != v {
				adj.Set(u, v, 1)
				adj.Set(v, u, 1)
			}
		}
		return nil
	}
	if err := addEdges(a, 0); err != nil {
		return nil, nil, err
	}
	if err := addEdges(b, na); err != nil {
		return nil, nil, err
	}
	rw := RandomWalkReturn(adj, k)
	pa, pb = mat.NewDense(na, k, nil), mat.NewDense(nb, k, nil)
	for v := 0; v < na; v++ {
		pa.SetRow(v, rw.RawRowView(class[v]))
	}
	for v := 0; v < nb; v++ {
		pb.SetRow(v, rw.RawRowView(class[na+v]))
	}
	return pa, pb, nil
}

// RandomWalkReturn returns the n×k matrix whose (v, j−1) entry is (T^j)_vv,
// T = A·D⁻¹, for a symmetric non-negative adjacency matrix A (n×n). Columns
// of T for zero-degree vertices are zero.
func RandomWalkReturn(adj *mat.Dense, k int) *mat.Dense {
	n, _ := adj.Dims()
	t := mat.NewDense(n, n, nil)
	for j := 0; j < n; j++ {
		deg := 0.0
		for i := 0; i < n; i++ {
			deg += adj.At(i, j)
		}
		if deg == 0 {
			continue
		}
		for i := 0; i < n; i++ {
			t.Set(i, j, adj.At(i, j)/deg)
		}
	}
	out := mat.NewDense(n, k, nil)
	pow := mat.DenseCopyOf(t)
	next := mat.NewDense(n, n, nil)
	for j := 0; j < k; j++ {
		if j > 0 {
			next.Mul(pow, t)
			pow, next = next, pow
		}
		for v := 0; v < n; v++ {
			out.Set(v, j, pow.At(v, v))
		}
	}
	return out
}
