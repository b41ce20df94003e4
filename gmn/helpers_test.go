package gmn

import (
	"fmt"
	"math/rand/v2"

	"github.com/pgequiv/pgequiv/gmn/graph"
)

const testTypes = 12

// randomPlan builds a plan-like graph: a tree of n computing nodes (plan
// edges parent→child), a content leaf (column or literal) under about a
// third of them, data-flow edges child→parent and a few logic-flow edges.
func randomPlan(n int, rng *rand.Rand) *graph.Graph {
	g := &graph.Graph{}
	for i := 0; i < n; i++ {
		g.AddNode(graph.Node{Kind: graph.Computing, Type: rng.IntN(8)})
		if i > 0 {
			p := rng.IntN(i)
			must(g.AddEdge(p, i, graph.PlanTree))
			must(g.AddEdge(i, p, graph.DataFlow))
		}
	}
	for i := 0; i < n; i++ {
		if rng.IntN(3) != 0 {
			continue
		}
		text := []string{"kid", "child", "users", "orders", "id", "42", "'x'"}[rng.IntN(7)]
		c := g.AddNode(graph.Node{Kind: graph.Content, Type: 8 + rng.IntN(3), Text: text})
		must(g.AddEdge(i, c, graph.DataFlow))
	}
	for k := 0; k < n/4; k++ {
		a, b := rng.IntN(n), rng.IntN(n)
		if a != b {
			must(g.AddEdge(a, b, graph.LogicFlow))
		}
	}
	return g
}

// permute returns g with its nodes renumbered by a random permutation.
func permute(g *graph.Graph, rng *rand.Rand) *graph.Graph {
	perm := rng.Perm(len(g.Nodes))
	out := &graph.Graph{Nodes: make([]graph.Node, len(g.Nodes)), Root: perm[g.Root]}
	for i, nd := range g.Nodes {
		out.Nodes[perm[i]] = nd
	}
	for _, e := range g.Edges {
		out.Edges = append(out.Edges, graph.Edge{From: perm[e.From], To: perm[e.To], Type: e.Type})
	}
	// Reverse the edge order too: the model must not depend on it beyond rounding.
	for i, j := 0, len(out.Edges)-1; i < j; i, j = i+1, j-1 {
		out.Edges[i], out.Edges[j] = out.Edges[j], out.Edges[i]
	}
	return out
}

func must(err error) {
	if err != nil {
		panic(fmt.Sprint("test setup: ", err))
	}
}

func tinyConfig(enc EncoderKind) Config {
	return Config{NumTypes: testTypes, Hidden: 6, EdgeDim: 3, PosSteps: 4, PosDim: 3, Steps: 2,
		GraphDim: 5, Encoder: enc, NGramBuckets: 32, CNNLen: 8, CNNChannels: 3, CNNBlocks: 1, Tau: 2}
}
