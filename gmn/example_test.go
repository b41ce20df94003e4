package gmn_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/pgequiv/pgequiv/gmn"
	"github.com/pgequiv/pgequiv/gmn/graph"
)

// Type ids are the caller's vocabulary; these are made up for the example.
const (
	opProject = iota
	opFilter
	opScan
	opEq
	contentColumn
	contentTable
	contentLiteral
	numTypes
)

// plan builds Project ← Filter(col = literal) ← Scan(table).
func plan(table, col, lit string) *graph.Graph {
	g := &graph.Graph{}
	proj := g.AddNode(graph.Node{Kind: graph.Computing, Type: opProject})
	filt := g.AddNode(graph.Node{Kind: graph.Computing, Type: opFilter})
	scan := g.AddNode(graph.Node{Kind: graph.Computing, Type: opScan})
	eq := g.AddNode(graph.Node{Kind: graph.Computing, Type: opEq})
	t := g.AddNode(graph.Node{Kind: graph.Content, Type: contentTable, Text: table})
	c := g.AddNode(graph.Node{Kind: graph.Content, Type: contentColumn, Text: col})
	l := g.AddNode(graph.Node{Kind: graph.Content, Type: contentLiteral, Text: lit})
	for _, e := range []graph.Edge{
		{From: proj, To: filt, Type: graph.PlanTree},
		{From: filt, To: scan, Type: graph.PlanTree},
		{From: scan, To: t, Type: graph.DataFlow},
		{From: filt, To: eq, Type: graph.LogicFlow},
		{From: eq, To: c, Type: graph.DataFlow},
		{From: eq, To: l, Type: graph.DataFlow},
	} {
		if err := g.AddEdge(e.From, e.To, e.Type); err != nil {
			panic(err)
		}
	}
	g.Root = proj
	return g
}

func Example() {
	m, err := gmn.New(gmn.Config{NumTypes: numTypes}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		fmt.Println(err)
		return
	}
	a := plan("users", "kid", "1")
	b := plan("users", "kid", "1")
	c := plan("users", "child", "1")

	same, _ := m.Score(a, b, graph.ContentSeeds(a, b))
	other, _ := m.Score(a, c, graph.ContentSeeds(a, c))
	fmt.Printf("identical plans: %.3f\n", same)
	fmt.Printf("kid vs child scores below identical: %v\n", other < same)

	// One supervised step on the pair (label 0: not equivalent).
	tr, _ := gmn.NewTrainer(m, gmn.TrainConfig{LR: 0.05})
	before, _ := tr.PairStep([]gmn.Example{{A: a, B: c, Label: 0, Seeds: graph.ContentSeeds(a, c)}})
	after, _ := tr.PairStep([]gmn.Example{{A: a, B: c, Label: 0, Seeds: graph.ContentSeeds(a, c)}})
	fmt.Printf("loss went down: %v\n", after < before)
	// Output:
	// identical plans: 1.000
	// kid vs child scores below identical: true
	// loss went down: true
}
