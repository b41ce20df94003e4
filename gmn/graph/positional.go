package graph

import (
	"fmt"
	"slices"

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
	var w PosWorkspace
	if a == nil || b == nil || len(a.Nodes) == 0 || len(b.Nodes) == 0 {
		return nil, nil, ErrEmpty
	}
	out := make([]float64, (len(a.Nodes)+len(b.Nodes))*max(k, 0))
	if err := w.Pair(out, a, b, seeds, k); err != nil {
		return nil, nil, err
	}
	na := len(a.Nodes)
	return mat.NewDense(na, k, out[:na*k]), mat.NewDense(len(b.Nodes), k, out[na*k:]), nil
}

// PosWorkspace holds reusable buffers for Pair, so repeated calls allocate
// nothing once warmed up. The zero value is ready to use; it is not safe
// for concurrent use.
type PosWorkspace struct {
	parent, class []int
	edges         [][2]int
	start, adj    []int
	deg           []float64
	cur, next     []float64
}

func (w *PosWorkspace) find(x int) int {
	p := w.parent
	for p[x] != x {
		p[x] = p[p[x]]
		x = p[x]
	}
	return x
}

func (w *PosWorkspace) union(x, y int) {
	if rx, ry := w.find(x), w.find(y); rx != ry {
		w.parent[max(rx, ry)] = min(rx, ry)
	}
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// Pair writes the encodings PairPositional describes into dst, which must
// have (len(a.Nodes)+len(b.Nodes))·k elements: a's rows first, then b's,
// row-major.
func (w *PosWorkspace) Pair(dst []float64, a, b *Graph, seeds []Pair, k int) error {
	if a == nil || b == nil || len(a.Nodes) == 0 || len(b.Nodes) == 0 {
		return ErrEmpty
	}
	if k <= 0 {
		return fmt.Errorf("%w: k = %d", ErrBadArg, k)
	}
	na, nb := len(a.Nodes), len(b.Nodes)
	n := na + nb
	if len(dst) != n*k {
		return fmt.Errorf("%w: dst has %d elements, want %d", ErrBadArg, len(dst), n*k)
	}
	if a.Root < 0 || a.Root >= na || b.Root < 0 || b.Root >= nb {
		return fmt.Errorf("%w: root out of range", ErrNodeRange)
	}
	w.parent = grow(w.parent, n)
	for i := range w.parent {
		w.parent[i] = i
	}
	w.union(a.Root, na+b.Root)
	for _, s := range seeds {
		if s.A < 0 || s.A >= na || s.B < 0 || s.B >= nb {
			return fmt.Errorf("%w: seed %d↔%d", ErrNodeRange, s.A, s.B)
		}
		w.union(s.A, na+s.B)
	}
	// Number the classes 0…nc−1; a root is the smallest member of its set,
	// so visiting vertices in order numbers each class at its root.
	w.class = grow(w.class, n)
	nc := 0
	for v := 0; v < n; v++ {
		if r := w.find(v); r == v {
			w.class[v] = nc
			nc++
		} else {
			w.class[v] = w.class[r]
		}
	}
	// Undirected, deduplicated edge list between classes, in CSR form.
	w.edges = w.edges[:0]
	for gi, g := range [2]*Graph{a, b} {
		off := gi * na
		for _, e := range g.Edges {
			if e.From < 0 || e.From >= len(g.Nodes) || e.To < 0 || e.To >= len(g.Nodes) {
				return fmt.Errorf("%w: edge %d→%d", ErrNodeRange, e.From, e.To)
			}
			u, v := w.class[off+e.From], w.class[off+e.To]
			if u != v {
				w.edges = append(w.edges, [2]int{u, v}, [2]int{v, u})
			}
		}
	}
	slices.SortFunc(w.edges, func(x, y [2]int) int {
		if x[0] != y[0] {
			return x[0] - y[0]
		}
		return x[1] - y[1]
	})
	w.edges = slices.Compact(w.edges)
	w.start = grow(w.start, nc+1)
	w.adj = grow(w.adj, len(w.edges))
	w.deg = grow(w.deg, nc)
	clear(w.start)
	for i, e := range w.edges {
		w.start[e[0]+1]++
		w.adj[i] = e[1]
	}
	for i := 0; i < nc; i++ {
		w.start[i+1] += w.start[i]
		w.deg[i] = float64(w.start[i+1] - w.start[i])
	}
	// P_1 = T, P_j = T·P_{j−1}, with T[i][l] = 1/deg(l) for each edge i–l.
	// Row i of T·P is Σ_{l ∈ N(i)} P[l]/deg(l).
	w.cur, w.next = grow(w.cur, nc*nc), grow(w.next, nc*nc)
	clear(w.cur)
	for i := 0; i < nc; i++ {
		for _, l := range w.adj[w.start[i]:w.start[i+1]] {
			w.cur[i*nc+l] = 1 / w.deg[l]
		}
	}
	for j := 0; j < k; j++ {
		if j > 0 {
			clear(w.next)
			for i := 0; i < nc; i++ {
				row := w.next[i*nc : (i+1)*nc]
				for _, l := range w.adj[w.start[i]:w.start[i+1]] {
					s := 1 / w.deg[l]
					for c, v := range w.cur[l*nc : (l+1)*nc] {
						row[c] += s * v
					}
				}
			}
			w.cur, w.next = w.next, w.cur
		}
		for v := 0; v < n; v++ {
			c := w.class[v]
			dst[v*k+j] = w.cur[c*nc+c]
		}
	}
	return nil
}

// RandomWalkReturn returns the n×k matrix whose (v, j−1) entry is (T^j)_vv,
// T = A·D⁻¹, for a symmetric non-negative adjacency matrix A (n×n). Columns
// of T for zero-degree vertices are zero. It is the dense reference for
// PosWorkspace.Pair.
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
