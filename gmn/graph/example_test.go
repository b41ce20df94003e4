package graph_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/pgequiv/pgequiv/gmn/graph"
)

func ExamplePairPositional() {
	// Two three-node paths root → x → y; joining the roots and the tails
	// makes the merged graph a 4-cycle.
	path := func() *graph.Graph {
		g := &graph.Graph{}
		for i := 0; i < 3; i++ {
			g.AddNode(graph.Node{Kind: graph.Computing, Type: i})
		}
		_ = g.AddEdge(0, 1, graph.PlanTree)
		_ = g.AddEdge(1, 2, graph.PlanTree)
		return g
	}
	a, b := path(), path()
	pa, _, err := graph.PairPositional(a, b, []graph.Pair{{A: 2, B: 2}}, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.3g\n", mat.Formatted(pa))
	// Output:
	// ⎡  0  0.5    0  0.5⎤
	// ⎢  0  0.5    0  0.5⎥
	// ⎣  0  0.5    0  0.5⎦
}
