package plangraph_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/pgequiv/pgequiv/gmn/graph"
	"github.com/pgequiv/pgequiv/gmn/plangraph"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

const petsDDL = `
CREATE TABLE student (stuid numeric, lname text, fname text, age numeric, sex text, PRIMARY KEY (stuid));
CREATE TABLE has_pet (stuid numeric, petid numeric);
CREATE TABLE pets (petid numeric, pettype text, pet_age numeric, weight numeric, PRIMARY KEY (petid));
`

func mustPlan(t testing.TB, sql string) *plan.Plan {
	t.Helper()
	s, err := catalog.LoadDDL(petsDDL, catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	p, err := planner.Plan(context.Background(), s, sql, planner.Options{})
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return p
}

func mustBuild(t testing.TB, sql string) *plangraph.Program {
	t.Helper()
	pr, err := plangraph.BuildProgram(mustPlan(t, sql))
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

type counts struct {
	computing, content int
	edges              [graph.NumEdgeTypes]int
}

func count(g *graph.Graph) counts {
	var c counts
	for _, n := range g.Nodes {
		if n.Kind == graph.Content {
			c.content++
		} else {
			c.computing++
		}
	}
	for _, e := range g.Edges {
		c.edges[e.Type]++
	}
	return c
}

func typeName(g *graph.Graph, i int) string { return plangraph.Vocabulary[g.Nodes[i].Type] }

func TestBuildSimpleFilter(t *testing.T) {
	// project t1.pettype
	//   filter (t1.weight > 5)
	//     scan pets
	pr := mustBuild(t, "SELECT pettype FROM pets WHERE weight > 5")
	g := pr.G
	got := count(g)
	// computing: project, filter, scan, >; content: pets, pets.weight,
	// 5, pets.pettype.
	want := counts{computing: 4, content: 4}
	// PlanTree: project→filter, filter→scan, scan→pets, filter→>,
	// >→weight, >→5, project→pettype = 7.
	// DataFlow: scan→weight, scan→filter, scan→project, scan→pettype = 4.
	// LogicFlow: scan→filter, filter→project, weight→5 (ordered >) = 3.
	want.edges = [graph.NumEdgeTypes]int{7, 4, 3}
	if got != want {
		t.Fatalf("counts = %+v, want %+v", got, want)
	}
	if typeName(g, g.Root) != "op.project" {
		t.Errorf("root is %s, want op.project", typeName(g, g.Root))
	}
	texts := map[string]string{}
	for i, n := range g.Nodes {
		if n.Kind == graph.Content {
			texts[n.Text] = typeName(g, i)
		}
	}
	wantTexts := map[string]string{"pets": "c.table", "pets.weight": "c.column", "pets.pettype": "c.column", "5": "c.numeric"}
	if !reflect.DeepEqual(texts, wantTexts) {
		t.Errorf("content = %v, want %v", texts, wantTexts)
	}
}

func TestBuildKinds(t *testing.T) {
	sql := `SELECT T1.fname, count(DISTINCT T2.petid) AS n FROM student AS T1
		LEFT JOIN has_pet AS T2 ON T1.stuid = T2.stuid
		WHERE T1.age > (SELECT avg(age) FROM student) AND T1.sex LIKE 'F%'
		GROUP BY T1.fname ORDER BY n DESC LIMIT 3`
	g := mustBuild(t, sql).G
	have := map[string]bool{}
	for i := range g.Nodes {
		have[typeName(g, i)] = true
	}
	for _, w := range []string{"op.join.left", "op.aggregate", "op.sort", "op.limit", "op.filter",
		"agg.count", "key.distinct", "agg.avg", "sub.scalar", "key.desc", "key.limit", "expr.ilike", "key.order",
		"c.table", "c.column", "c.int"} {
		if !have[w] {
			t.Errorf("no %s node in %v", w, have)
		}
	}
	if err := g.Validate(plangraph.NumTypes); err != nil {
		t.Fatal(err)
	}
	// The sort key reads the count defined by the aggregate: a data-flow
	// edge from the agg.count node must reach the sort's key node.
	found := false
	for _, e := range g.Edges {
		if e.Type == graph.DataFlow && typeName(g, e.From) == "agg.count" && typeName(g, e.To) == "key.desc" {
			found = true
		}
	}
	if !found {
		t.Error("no data-flow edge agg.count → key.desc")
	}
}

func TestBuildDeterministicAndAliasFree(t *testing.T) {
	a := mustBuild(t, "SELECT s.fname AS x FROM student s WHERE s.age > 20 AND s.sex = 'F'")
	b := mustBuild(t, "SELECT fname FROM student WHERE sex = 'F' AND 20 < age")
	if !reflect.DeepEqual(a.G, b.G) || !reflect.DeepEqual(a.Keys, b.Keys) {
		t.Fatalf("equivalent spellings gave different graphs:\n%+v\n%+v", a.G, b.G)
	}
	c := mustBuild(t, "SELECT fname FROM student WHERE sex = 'F' AND age >= 20")
	if reflect.DeepEqual(a.G, c.G) {
		t.Fatal("> and >= gave the same graph")
	}
}

func TestOrderMatters(t *testing.T) {
	a := mustBuild(t, "SELECT fname, lname FROM student").G
	b := mustBuild(t, "SELECT lname, fname FROM student").G
	if reflect.DeepEqual(a, b) {
		t.Fatal("projection order lost")
	}
}

func TestSetOpAndSubqueries(t *testing.T) {
	g := mustBuild(t, `SELECT fname FROM student WHERE stuid IN (SELECT stuid FROM has_pet)
		UNION SELECT lname FROM student WHERE NOT EXISTS (SELECT 1 FROM has_pet h WHERE h.stuid = student.stuid)`).G
	have := map[string]int{}
	for i := range g.Nodes {
		have[typeName(g, i)]++
	}
	if have["op.setop.union"] != 1 || have["op.scan"] < 4 {
		t.Fatalf("types %v", have)
	}
	if have["op.join.semi"]+have["sub.any"] == 0 || have["op.join.anti"]+have["sub.exists"] == 0 {
		t.Fatalf("subqueries missing: %v", have)
	}
}

func TestSeeds(t *testing.T) {
	a := mustBuild(t, "SELECT fname FROM student WHERE age > 20")
	b := mustBuild(t, "SELECT fname FROM student WHERE age > 21")
	seeds := plangraph.Seeds(a, b)
	kinds := map[string]int{}
	for _, s := range seeds {
		if a.Keys[s.A] != "" && a.Keys[s.A] != b.Keys[s.B] {
			t.Fatalf("seed %v joins different keys %q, %q", s, a.Keys[s.A], b.Keys[s.B])
		}
		kinds[typeName(a.G, s.A)]++
	}
	// Same scan subtree and same content (student, student.age,
	// student.fname); the filters and projects differ.
	want := map[string]int{"op.scan": 1, "c.table": 1, "c.column": 2}
	if !reflect.DeepEqual(kinds, want) {
		t.Fatalf("seed kinds %v, want %v", kinds, want)
	}
	same := plangraph.Seeds(a, a)
	if len(same) <= len(seeds) {
		t.Fatalf("self seeds %d ≤ %d", len(same), len(seeds))
	}
}

func TestBuildNil(t *testing.T) {
	if _, err := plangraph.Build(nil); err == nil {
		t.Fatal("nil plan accepted")
	}
}

func TestTypeIDFallback(t *testing.T) {
	if plangraph.TypeID("fn.no_such_function") != plangraph.TypeID("fn.other") {
		t.Error("unknown function not in fn.other")
	}
	if plangraph.TypeID("agg.sum") == plangraph.TypeID("agg.other") {
		t.Error("agg.sum in agg.other")
	}
	for i, s := range plangraph.Vocabulary {
		if plangraph.TypeID(s) != i {
			t.Errorf("TypeID(%q) = %d, want %d", s, plangraph.TypeID(s), i)
		}
	}
}
