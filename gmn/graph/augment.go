package graph

import (
	"fmt"
	"math/rand/v2"
)

// DropNodes returns a copy of g without ⌊frac·(n−1)⌋ nodes chosen
// uniformly from rng among the non-root nodes; edges touching a dropped
// node are dropped too and the remaining nodes keep their order.
func DropNodes(g *Graph, frac float64, rng *rand.Rand) (*Graph, error) {
	if frac < 0 || frac >= 1 || rng == nil {
		return nil, fmt.Errorf("%w: drop fraction %g", ErrBadArg, frac)
	}
	n := len(g.Nodes)
	if n == 0 {
		return nil, ErrEmpty
	}
	cand := make([]int, 0, n-1)
	for i := range g.Nodes {
		if i != g.Root {
			cand = append(cand, i)
		}
	}
	rng.Shuffle(len(cand), func(i, j int) { cand[i], cand[j] = cand[j], cand[i] })
	drop := make([]bool, n)
	for _, v := range cand[:int(frac*float64(len(cand)))] {
		drop[v] = true
	}
	remap := make([]int, n)
	out := &Graph{}
	for i, nd := range g.Nodes {
		if drop[i] {
			remap[i] = -1
			continue
		}
		remap[i] = out.AddNode(nd)
	}
	out.Root = remap[g.Root]
	for _, e := range g.Edges {
		if e.From < 0 || e.From >= n || e.To < 0 || e.To >= n {
			return nil, ErrNodeRange
		}
		if f, t := remap[e.From], remap[e.To]; f >= 0 && t >= 0 {
			out.Edges = append(out.Edges, Edge{From: f, To: t, Type: e.Type})
		}
	}
	return out, nil
}

// MaskAttributes returns a copy of g where ⌈frac·n⌉ nodes chosen from rng
// (none when frac is 0) have their type replaced by maskType and their text
// cleared.
func MaskAttributes(g *Graph, frac float64, maskType int, rng *rand.Rand) (*Graph, error) {
	if frac < 0 || frac > 1 || rng == nil {
		return nil, fmt.Errorf("%w: mask fraction %g", ErrBadArg, frac)
	}
	out := g.Clone()
	n := len(out.Nodes)
	k := int(frac*float64(n) + 0.999999)
	if frac == 0 {
		k = 0
	}
	perm := rng.Perm(n)
	for _, v := range perm[:min(k, n)] {
		out.Nodes[v].Type = maskType
		out.Nodes[v].Text = ""
	}
	return out, nil
}
