package treeedit_test

import (
	"fmt"

	"github.com/pgequiv/pgequiv/equivalence/treeedit"
)

func ExampleDistance() {
	leaf := func(l string) *treeedit.Node { return &treeedit.Node{Label: l} }
	// Project(Filter(Scan dogs)) against Project(Scan dogs): one deletion.
	a := &treeedit.Node{Label: "Project", Children: []*treeedit.Node{
		{Label: "Filter", Children: []*treeedit.Node{leaf("Scan dogs")}},
	}}
	b := &treeedit.Node{Label: "Project", Children: []*treeedit.Node{leaf("Scan dogs")}}
	fmt.Println(treeedit.Distance(a, b))
	fmt.Printf("%.3f\n", treeedit.Similarity(a, b))
	// Output:
	// 1
	// 0.667
}
