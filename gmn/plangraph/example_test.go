package plangraph_test

import (
	"context"
	"fmt"

	"github.com/pgequiv/pgequiv/gmn/graph"
	"github.com/pgequiv/pgequiv/gmn/plangraph"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

func ExampleBuild() {
	s, _ := catalog.LoadDDL("CREATE TABLE pets (petid numeric PRIMARY KEY, pettype text, weight numeric);", catalog.SQLite)
	p, _ := planner.Plan(context.Background(), s, "SELECT pettype FROM pets WHERE weight > 5", planner.Options{})
	g, err := plangraph.Build(p)
	if err != nil {
		panic(err)
	}
	for _, n := range g.Nodes {
		if n.Kind == graph.Content {
			fmt.Printf("%s %q\n", plangraph.Vocabulary[n.Type], n.Text)
		} else {
			fmt.Println(plangraph.Vocabulary[n.Type])
		}
	}
	fmt.Println("root:", plangraph.Vocabulary[g.Nodes[g.Root].Type], "edges:", len(g.Edges))
	// Output:
	// op.project
	// op.filter
	// op.scan
	// c.table "pets"
	// expr.>
	// c.column "pets.weight"
	// c.numeric "5"
	// c.column "pets.pettype"
	// root: op.project edges: 14
}
