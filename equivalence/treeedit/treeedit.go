// Package treeedit computes the Zhang–Shasha edit distance between ordered,
// labelled trees, and a similarity derived from it.
//
// The judge calls this once per query pair on plan trees of a few dozen nodes
// within a sub-millisecond budget, so a Calculator keeps its working buffers
// between calls and allocates nothing once they have grown to fit.
//
// The exact algorithm takes |a|·|b| memory and, for wide or deep trees, far
// more time; queries of a hundred thousand list items would need hundreds of
// gigabytes. Above a Calculator's limits the distance is therefore a lower
// bound computed in linear time from the trees' sizes and label multisets,
// and Result.Exact says which one was returned. Identical trees cost a linear
// comparison and nothing else.
package treeedit

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Node is a node of an ordered, labelled tree. The order of Children is
// significant. A nil *Node is the empty tree. Trees must be acyclic.
type Node struct {
	Label    string
	Children []*Node
}

// Size reports the number of nodes in the tree rooted at n; 0 for nil.
func (n *Node) Size() int {
	if n == nil {
		return 0
	}
	s := 1
	for _, c := range n.Children {
		s += c.Size()
	}
	return s
}

// Costs are the costs of the three edit operations. Relabel is charged only
// when the labels differ; relabelling to the same label is free.
type Costs struct {
	Insert  int
	Delete  int
	Relabel int
}

// DefaultCosts charges 1 to insert or delete a node and 2 to relabel one, so
// that a relabel costs the same as deleting the node and inserting another.
func DefaultCosts() Costs { return Costs{Insert: 1, Delete: 1, Relabel: 2} }

// MaxCost is the largest cost NewCalculator accepts. Distances are kept in
// 32-bit cells, which this bound keeps from overflowing for trees of up to
// 32,767 nodes each (far beyond what the O(|a|·|b|) memory allows anyway).
const MaxCost = 1 << 15

// ErrInvalidCost is returned by NewCalculator for a cost that is negative
// (the dynamic programme assumes costs are non-negative) or above MaxCost.
var ErrInvalidCost = errors.New("treeedit: cost out of range")

// Calculator computes tree edit distances with fixed costs, reusing its
// buffers between calls. A Calculator is not safe for concurrent use; the
// package-level Distance and Similarity draw from a pool for that.
type Calculator struct {
	costs Costs
	// MaxCells bounds |a|·|b|, the cells of the distance matrices (8 bytes
	// each), and MaxWork the cell updates the exact algorithm would make;
	// above either, Distance returns the linear lower bound. 0 means
	// DefaultMaxCells / DefaultMaxWork; negative means no limit.
	MaxCells int
	MaxWork  int64
	t1, t2   flat
	n1, n2   int // the sizes of the trees of the last call
	// td[i*n2+j] is the distance between the subtrees rooted at postorder
	// nodes i and j (0-based); fd is the forest-distance scratch matrix with
	// one extra row and column for the empty forest.
	td, fd []int32
}

// flat is a tree flattened in postorder: labels[i] is node i's label, lml[i]
// the postorder index of its leftmost leaf descendant, and keyroots the nodes
// that are the root or have a left sibling, in increasing order.
type flat struct {
	labels   []string
	lml      []int32
	keyroots []int32
}

// Default limits: 4 Mi cells is 32 MiB of matrices, and 2^27 cell updates
// take about a quarter of a second; plan trees of judged queries are tens
// to hundreds of nodes and stay far below both.
const (
	DefaultMaxCells = 4 << 20
	DefaultMaxWork  = 1 << 27
)

// Result is a computed distance and whether it is exact (false: a lower
// bound, returned above the Calculator's limits).
type Result struct {
	Distance int
	Exact    bool
}

// ctxPollWork is how many cell updates pass between context polls, about
// a tenth of a millisecond.
const ctxPollWork = 1 << 16

// NewCalculator returns a Calculator using costs c.
func NewCalculator(c Costs) (*Calculator, error) {
	for _, v := range []int{c.Insert, c.Delete, c.Relabel} {
		if v < 0 || v > MaxCost {
			return nil, fmt.Errorf("costs %+v: %w", c, ErrInvalidCost)
		}
	}
	return &Calculator{costs: c}, nil
}

// Distance returns the minimum total cost of edits turning tree a into tree b
// when the trees fit the Calculator's limits, and otherwise the lower bound
// of Bound. It takes O(|a|·|b|) memory and, for trees of depth d,
// O(|a|·|b|·d²) time within the limits, linear time above them.
func (c *Calculator) Distance(a, b *Node) int {
	r, _ := c.DistanceContext(context.Background(), a, b)
	return r.Distance
}

// DistanceContext is Distance, reporting whether the result is exact and
// stopping with ctx's error when ctx ends.
func (c *Calculator) DistanceContext(ctx context.Context, a, b *Node) (Result, error) {
	// Sizes and work first, from a walk that stores nothing: trees over
	// the limits are never flattened.
	var s1, s2 treeStats
	s1.walk(a, true)
	s2.walk(b, true)
	n1, n2 := s1.size, s2.size
	c.n1, c.n2 = n1, n2
	switch {
	case n1 == 0:
		return Result{n2 * c.costs.Insert, true}, nil
	case n2 == 0:
		return Result{n1 * c.costs.Delete, true}, nil
	}
	maxCells, maxWork := int64(c.MaxCells), c.MaxWork
	if maxCells == 0 {
		maxCells = DefaultMaxCells
	}
	if maxWork == 0 {
		maxWork = DefaultMaxWork
	}
	cells := int64(n1) * int64(n2)
	work := s1.work*s2.work + s1.leaves*int64(n2) + s2.leaves*int64(n1)
	if (maxCells > 0 && cells > maxCells) || (maxWork > 0 && work > maxWork) {
		if equal(a, b) {
			return Result{0, true}, nil
		}
		return Result{c.boundOf(a, b, n1, n2), false}, nil
	}
	c.t1.reset(a)
	c.t2.reset(b)
	if c.t1.same(&c.t2) {
		return Result{0, true}, nil
	}
	c.td = grow(c.td, n1*n2)
	c.fd = grow(c.fd, (n1+1)*(n2+1))
	// done counts cell updates since the last context poll.
	done := int64(0)
	poll := func(cells int64) error {
		if done += cells; done < ctxPollWork {
			return nil
		}
		done = 0
		return ctx.Err()
	}
	// Keyroots that are leaves have a closed form against any subtree; most
	// keyroots are leaves, and this saves a treeDist call, with its set-up,
	// per keyroot pair that has one. The remaining calls read these values
	// from td as they would read those of earlier calls.
	for _, i := range c.t1.keyroots {
		if c.t1.lml[i] == i {
			c.leafVsSubtrees(&c.t1, &c.t2, int(i), n2, 1, c.costs.Delete, c.costs.Insert)
			if err := poll(int64(n2)); err != nil {
				return Result{}, err
			}
		}
	}
	for _, j := range c.t2.keyroots {
		if c.t2.lml[j] == j {
			c.leafVsSubtrees(&c.t2, &c.t1, int(j), 1, n2, c.costs.Insert, c.costs.Delete)
			if err := poll(int64(n1)); err != nil {
				return Result{}, err
			}
		}
	}
	for _, i := range c.t1.keyroots {
		if c.t1.lml[i] == i {
			continue
		}
		for _, j := range c.t2.keyroots {
			if c.t2.lml[j] != j {
				c.treeDist(int(i), int(j))
				if err := poll(int64(int(i)-int(c.t1.lml[i])+1) * int64(int(j)-int(c.t2.lml[j])+1)); err != nil {
					return Result{}, err
				}
			}
		}
	}
	return Result{int(c.td[n1*n2-1]), true}, nil
}

// Bound returns a lower bound of Distance(a, b) in time linear in the trees'
// sizes: an edit script maps m node pairs, deletes the other |a|−m nodes,
// inserts the other |b|−m, and relabels every mapped pair beyond the
// number of labels the trees have in common (as multisets). The cost of
// that is piecewise linear in m, so its least value lies at m = 0, at the
// common count, or at min(|a|, |b|). It is exact when one tree's labels are
// the other's with nodes only added (a list with one more item).
func (c *Calculator) Bound(a, b *Node) int {
	return c.boundOf(a, b, a.Size(), b.Size())
}

// boundOf is Bound for trees of n1 and n2 nodes.
func (c *Calculator) boundOf(a, b *Node, n1, n2 int) int {
	count := make(map[string]int, min(n1, 1<<20))
	var add func(n *Node)
	add = func(n *Node) {
		count[n.Label]++
		for _, ch := range n.Children {
			if ch != nil {
				add(ch)
			}
		}
	}
	common := 0
	var take func(n *Node)
	take = func(n *Node) {
		if count[n.Label] > 0 {
			count[n.Label]--
			common++
		}
		for _, ch := range n.Children {
			if ch != nil {
				take(ch)
			}
		}
	}
	if a != nil {
		add(a)
	}
	if b != nil {
		take(b)
	}
	cost := func(m int) int {
		d := c.costs.Delete*(n1-m) + c.costs.Insert*(n2-m)
		if m > common {
			d += c.costs.Relabel * (m - common)
		}
		return d
	}
	return min(cost(0), cost(common), cost(min(n1, n2)))
}

// leafVsSubtrees sets the distance between leaf node of tree leaf and every
// subtree of tree other, storing the distance to subtree k at
// td[node*rowStride+k*colStride]. dropLeaf is the cost of removing the leaf
// and addOther that of adding a node of other (Delete and Insert when leaf
// is in t1, the reverse when it is in t2). Turning a leaf into a subtree of
// s nodes either keeps the leaf as one of them, relabelled if no node has
// its label, and adds the other s-1, or drops it and adds all s.
func (c *Calculator) leafVsSubtrees(leaf, other *flat, node, rowStride, colStride, dropLeaf, addOther int) {
	label := leaf.labels[node]
	drop, add, rel := int32(dropLeaf), int32(addOther), int32(c.costs.Relabel)
	td := c.td
	last := int32(-1) // last node of other, in postorder, labelled label
	for k, l := range other.lml {
		if other.labels[k] == label {
			last = int32(k)
		}
		size := int32(k) - l + 1
		keep := (size-1)*add + rel
		if last >= l { // the subtree rooted at k has a node labelled label
			keep -= rel
		}
		td[node*rowStride+k*colStride] = min(drop+size*add, keep)
	}
}

// Similarity returns 1 − Distance(a, b) / max(|a|, |b|), and 1 when both trees
// are empty. It is 1 for identical trees and decreases as they differ; note
// that with relabel or insert+delete costs above 1 it can go below 0 (two
// one-node trees with different labels score −1 under DefaultCosts). Above
// the Calculator's limits the distance is a lower bound, so the similarity
// is an upper bound.
func (c *Calculator) Similarity(a, b *Node) float64 {
	s, _, _ := c.SimilarityContext(context.Background(), a, b)
	return s
}

// SimilarityContext is Similarity, reporting whether the distance was exact
// and stopping with ctx's error when ctx ends.
func (c *Calculator) SimilarityContext(ctx context.Context, a, b *Node) (float64, bool, error) {
	r, err := c.DistanceContext(ctx, a, b)
	if err != nil {
		return 0, false, err
	}
	m := max(c.n1, c.n2)
	if m == 0 {
		return 1, true, nil
	}
	return 1 - float64(r.Distance)/float64(m), r.Exact, nil
}

// treeDist fills td for subtree pairs whose keyroots are i and j, following
// Zhang & Shasha (1989). Rows and columns of fd are shifted by one so that
// row/column li (resp. lj) stands for the empty forest before node li.
func (c *Calculator) treeDist(i, j int) {
	l1, l2 := c.t1.lml, c.t2.lml
	lab1, lab2 := c.t1.labels, c.t2.labels
	ins, del, rel := int32(c.costs.Insert), int32(c.costs.Delete), int32(c.costs.Relabel)
	n2 := len(lab2)
	w := n2 + 1 // fd row stride
	td, fd := c.td, c.fd
	li, lj := int(l1[i]), int(l2[j])

	// fd[x*w+y] is the distance between forest t1[li..x-1] and t2[lj..y-1].
	fd[li*w+lj] = 0
	for x := li + 1; x <= i+1; x++ {
		fd[x*w+lj] = fd[(x-1)*w+lj] + del
	}
	for y := lj + 1; y <= j+1; y++ {
		fd[li*w+y] = fd[li*w+y-1] + ins
	}
	// Column k of the slices below stands for t2 node lj+k; cur and prev
	// have one more column in front for the empty t2 forest.
	m := j - lj + 1
	l2s := l2[lj : j+1]
	lab2s := lab2[lj : j+1]
	for x := li + 1; x <= i+1; x++ {
		i1 := x - 1
		lx := int(l1[i1])
		cur := fd[x*w+lj : x*w+j+2]
		prev := fd[(x-1)*w+lj : (x-1)*w+j+2]
		tdRow := td[i1*n2+lj : i1*n2+j+1]
		// base[ly] is the distance between the forests left of the subtrees
		// rooted at i1 and at a t2 node whose leftmost leaf is ly.
		base := fd[lx*w : lx*w+j+2]
		_, _, _ = cur[m], prev[m], tdRow[m-1] // hoist bounds checks
		// left carries cur[k] in a register: each cell depends on the one
		// before it, and a store/load round trip per cell would dominate.
		left := cur[0]
		if lx != li {
			// t1[li..i1] is a forest, not a tree: no cell of this row
			// matches two roots.
			for k, ly := range l2s {
				left = min(prev[k+1]+del, left+ins, base[ly]+tdRow[k])
				cur[k+1] = left
			}
			continue
		}
		for k, ly := range l2s {
			best := min(prev[k+1]+del, left+ins)
			if int(ly) != lj {
				left = min(best, base[ly]+tdRow[k])
				cur[k+1] = left
				continue
			}
			// Both forests are whole trees: the last step may match their
			// roots.
			r := prev[k]
			if lab1[i1] != lab2s[k] {
				r += rel
			}
			left = min(best, r)
			cur[k+1] = left
			tdRow[k] = left
		}
	}
}

// treeStats are what the limits need of a tree, gathered without
// flattening it: its size; work, the sum of subtree sizes over keyroots
// that are not leaves, and leaves, the number of keyroots that are. The
// exact algorithm fills work₁·work₂ forest cells plus a row per leaf
// keyroot.
type treeStats struct {
	size         int
	work, leaves int64
}

// walk adds n's subtree and returns its size; keyroot as in flat.visit.
func (s *treeStats) walk(n *Node, keyroot bool) int {
	if n == nil {
		return 0
	}
	size, first := 1, true
	for _, ch := range n.Children {
		if ch == nil {
			continue
		}
		size += s.walk(ch, !first)
		first = false
	}
	s.size++
	if keyroot {
		if size == 1 {
			s.leaves++
		} else {
			s.work += int64(size)
		}
	}
	return size
}

// equal reports whether a and b are the same tree (nil children skipped).
func equal(a, b *Node) bool {
	if a.Label != b.Label {
		return false
	}
	i, j := 0, 0
	for {
		for i < len(a.Children) && a.Children[i] == nil {
			i++
		}
		for j < len(b.Children) && b.Children[j] == nil {
			j++
		}
		if i == len(a.Children) || j == len(b.Children) {
			return i == len(a.Children) && j == len(b.Children)
		}
		if !equal(a.Children[i], b.Children[j]) {
			return false
		}
		i++
		j++
	}
}

func (f *flat) reset(root *Node) {
	f.labels = f.labels[:0]
	f.lml = f.lml[:0]
	f.keyroots = f.keyroots[:0]
	if root != nil {
		f.visit(root, true)
	}
}

// same reports whether f and g flatten the same tree: the postorder labels
// and, per node, the leftmost leaf (hence the subtree size) determine it.
func (f *flat) same(g *flat) bool {
	if len(f.labels) != len(g.labels) {
		return false
	}
	for i := range f.labels {
		if f.lml[i] != g.lml[i] || f.labels[i] != g.labels[i] {
			return false
		}
	}
	return true
}

// visit appends n's subtree in postorder and returns n's leftmost leaf.
// keyroot says whether n is the root or has a left sibling.
func (f *flat) visit(n *Node, keyroot bool) int32 {
	leftmost := int32(-1)
	for _, ch := range n.Children {
		if ch == nil {
			continue
		}
		// A child is a keyroot when a non-nil sibling precedes it.
		l := f.visit(ch, leftmost >= 0)
		if leftmost < 0 {
			leftmost = l
		}
	}
	idx := int32(len(f.labels))
	if leftmost < 0 {
		leftmost = idx
	}
	f.labels = append(f.labels, n.Label)
	f.lml = append(f.lml, leftmost)
	if keyroot {
		f.keyroots = append(f.keyroots, idx)
	}
	return leftmost
}

func grow(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

var pool = sync.Pool{New: func() any {
	c, _ := NewCalculator(DefaultCosts()) // DefaultCosts are valid.
	return c
}}

// Distance returns the edit distance between a and b under DefaultCosts. It
// is safe for concurrent use.
func Distance(a, b *Node) int {
	c := pool.Get().(*Calculator)
	defer pool.Put(c)
	return c.Distance(a, b)
}

// Similarity returns Calculator.Similarity under DefaultCosts. It is safe for
// concurrent use.
func Similarity(a, b *Node) float64 {
	c := pool.Get().(*Calculator)
	defer pool.Put(c)
	return c.Similarity(a, b)
}

// SimilarityContext returns Calculator.SimilarityContext under DefaultCosts
// and the default limits. It is safe for concurrent use.
func SimilarityContext(ctx context.Context, a, b *Node) (sim float64, exact bool, err error) {
	c := pool.Get().(*Calculator)
	defer pool.Put(c)
	return c.SimilarityContext(ctx, a, b)
}
