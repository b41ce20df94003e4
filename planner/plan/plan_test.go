package plan_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

func TestColSet(t *testing.T) {
	var s plan.ColSet
	if !s.Empty() || s.Len() != 0 || s.Has(0) || s.Has(1000) {
		t.Fatal("zero ColSet is not empty")
	}
	s.Add(3)
	s.Add(64)
	s.Add(200)
	s.Add(3)
	if s.Len() != 3 || !s.Has(3) || !s.Has(64) || !s.Has(200) || s.Has(4) || s.Has(128) {
		t.Errorf("after adds: %v", s.Ordered())
	}
	if got := s.Ordered(); !reflect.DeepEqual(got, []plan.ColumnID{3, 64, 200}) {
		t.Errorf("Ordered = %v", got)
	}
	o := plan.MakeColSet(64, 5)
	if u := s.Union(o); !reflect.DeepEqual(u.Ordered(), []plan.ColumnID{3, 5, 64, 200}) {
		t.Errorf("Union = %v", u.Ordered())
	}
	if s.Len() != 3 || o.Len() != 2 {
		t.Error("Union changed its operands")
	}
	if !s.Intersects(o) || s.Intersects(plan.MakeColSet(5, 6)) || s.Intersects(plan.ColSet{}) {
		t.Error("Intersects wrong")
	}
	if !plan.MakeColSet(3, 200).SubsetOf(s) || o.SubsetOf(s) || !(plan.ColSet{}).SubsetOf(s) {
		t.Error("SubsetOf wrong")
	}
	// A set with trailing zero words equals one without them.
	w := plan.MakeColSet(3, 300)
	w.Remove(300)
	w.Remove(9999) // beyond the words: no-op
	if !w.Equals(plan.MakeColSet(3)) || !plan.MakeColSet(3).Equals(w) || w.Len() != 1 {
		t.Errorf("Equals with trailing zero words: %v", w.Ordered())
	}
	c := s.Copy()
	c.Add(7)
	if s.Has(7) {
		t.Error("Copy shares storage")
	}
	c.UnionWith(plan.MakeColSet(500))
	if !c.Has(500) || !c.Has(3) || s.Has(500) {
		t.Error("UnionWith wrong")
	}
}

const ddl = `
CREATE TABLE a (id int PRIMARY KEY, x int, n text NOT NULL, u text UNIQUE, k text NOT NULL UNIQUE);
CREATE TABLE b (id int PRIMARY KEY, a_id int NOT NULL REFERENCES a, y int);
CREATE TABLE c (p int, q int, r int, PRIMARY KEY (p, q));
`

// props plans sql without normalization and derives the root's properties.
func props(t *testing.T, sql string) (*plan.Plan, *plan.Props) {
	t.Helper()
	s, err := catalog.LoadDDL(ddl, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	p, err := planner.Plan(context.Background(), s, sql, planner.Options{SkipNormalize: true})
	if err != nil {
		t.Fatal(err)
	}
	return p, plan.Derive(p.Root, p.Meta)
}

// colByName finds the column instance alias.name.
func colByName(t *testing.T, p *plan.Plan, alias, name string) plan.ColumnID {
	t.Helper()
	for _, inst := range p.Meta.Instances {
		if inst.Alias != alias {
			continue
		}
		for i, c := range inst.Table.Columns {
			if c.Name == name {
				return inst.Cols[i]
			}
		}
	}
	t.Fatalf("no column %s.%s", alias, name)
	return 0
}

func keyNames(p *plan.Plan, pr *plan.Props) [][]string {
	var out [][]string
	for _, k := range pr.Keys {
		var ns []string
		for _, c := range k.Ordered() {
			m := p.Meta.Col(c)
			alias := "?"
			if m.Instance >= 0 {
				alias = p.Meta.Instances[m.Instance].Alias
			}
			ns = append(ns, alias+"."+m.Name)
		}
		if ns == nil {
			ns = []string{}
		}
		out = append(out, ns)
	}
	return out
}

func TestDeriveKeys(t *testing.T) {
	tests := []struct {
		sql  string
		want [][]string
	}{
		{"SELECT * FROM a", [][]string{{"a.id"}, {"a.k"}}},
		{"SELECT * FROM c", [][]string{{"c.p", "c.q"}}},
		// Many-to-one: each b row matches at most one a row.
		{"SELECT * FROM b JOIN a ON b.a_id = a.id", [][]string{{"b.id"}}},
		{"SELECT * FROM a JOIN b ON b.a_id = a.id", [][]string{{"b.id"}}},
		// One-to-one on keys keeps both sides' keys (the first side's).
		{"SELECT * FROM a JOIN b ON b.id = a.id", [][]string{{"a.id"}, {"a.k"}}},
		// Cross join: keys combine.
		{"SELECT * FROM a, c", [][]string{{"a.id", "c.p", "c.q"}, {"a.k", "c.p", "c.q"}}},
		// Non-key equality does not make either side unique.
		{"SELECT * FROM a JOIN b ON b.y = a.x", [][]string{{"a.id", "b.id"}, {"a.k", "b.id"}}},
		// LEFT JOIN to one row per preserved row keeps the preserved keys.
		{"SELECT * FROM b LEFT JOIN a ON b.a_id = a.id", [][]string{{"b.id"}}},
		{"SELECT * FROM a LEFT JOIN b ON b.a_id = a.id", [][]string{{"a.id", "b.id"}, {"a.k", "b.id"}}},
		{"SELECT * FROM a FULL JOIN b ON b.a_id = a.id", nil},
		// Semi join keeps the left keys.
		{"SELECT * FROM a WHERE EXISTS (SELECT 1 FROM b)", [][]string{{"a.id"}, {"a.k"}}},
		{"SELECT x, count(*) FROM a GROUP BY x", [][]string{{"a.x"}}},
		{"SELECT count(*) FROM a", [][]string{{}}},
		{"SELECT x FROM a LIMIT 1", [][]string{{"a.id"}, {"a.k"}, {}}},
		{"SELECT x FROM a UNION ALL SELECT y FROM b", nil},
		{"VALUES (1)", [][]string{{}}},
		{"VALUES (1), (2)", nil},
	}
	for _, tc := range tests {
		p, pr := props(t, tc.sql)
		// Keys at the root projection are over its output; look below
		// the projection for base-column names where it is a Project.
		in := p.Root
		if in.Op == plan.OpProject {
			in = in.Inputs[0]
		}
		pr = plan.Derive(in, p.Meta)
		if got := keyNames(p, pr); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: keys %v, want %v", tc.sql, got, tc.want)
		}
	}
}

func TestDeriveProjectKeysAndNotNull(t *testing.T) {
	p, pr := props(t, "SELECT b.a_id, a.n, a.u, 1, NULL, a.x + 1 FROM b JOIN a ON b.a_id = a.id")
	// The join's key b.id is not projected; b.a_id (equal to a.id) is no
	// key of the join, since many b rows share one a row.
	if len(pr.Keys) != 0 {
		t.Errorf("keys %v, want none", keyNames(p, pr))
	}
	out := p.Root.OutCols()
	wantNotNull := []bool{true, true, false, true, false, false}
	for i, c := range out {
		if pr.NotNull.Has(c) != wantNotNull[i] {
			t.Errorf("column %d (%s): not null = %v, want %v", i, p.Names[i], pr.NotNull.Has(c), wantNotNull[i])
		}
	}
	// A key reaches the output through an equal column.
	p, pr = props(t, "SELECT b.id, b.a_id FROM a JOIN b ON b.id = a.id")
	if len(pr.Keys) == 0 || !pr.Keys[0].Equals(plan.MakeColSet(p.Root.OutCols()[0])) {
		t.Errorf("key through equal column: %v", pr.Keys)
	}
}

func TestDeriveNotNull(t *testing.T) {
	tests := []struct {
		sql   string
		alias string
		col   string
		want  bool
	}{
		{"SELECT * FROM a", "a", "id", true},
		{"SELECT * FROM a", "a", "x", false},
		{"SELECT * FROM a WHERE x > 1", "a", "x", true},
		{"SELECT * FROM a WHERE x IS NOT NULL", "a", "x", true},
		{"SELECT * FROM a WHERE x IS NULL", "a", "x", false},
		{"SELECT * FROM a WHERE x > 1 OR x < 0", "a", "x", true},
		{"SELECT * FROM a WHERE x > 1 OR u = 'a'", "a", "x", false},
		{"SELECT * FROM a WHERE coalesce(x, 0) = 0", "a", "x", false},
		{"SELECT * FROM a WHERE x IN (SELECT y FROM b)", "a", "x", true},
		{"SELECT * FROM a WHERE x + 1 = 2", "a", "x", true},
		{"SELECT * FROM a WHERE x IS DISTINCT FROM 1", "a", "x", false},
		// The null-extended side loses NOT NULL; the preserved keeps it.
		{"SELECT * FROM b LEFT JOIN a ON a.id = b.a_id", "a", "n", false},
		{"SELECT * FROM b LEFT JOIN a ON a.id = b.a_id", "b", "a_id", true},
		{"SELECT * FROM a JOIN b ON a.x = b.y", "a", "x", true},
	}
	for _, tc := range tests {
		p, _ := props(t, tc.sql)
		in := p.Root.Inputs[0]
		pr := plan.Derive(in, p.Meta)
		c := colByName(t, p, tc.alias, tc.col)
		if got := pr.NotNull.Has(c); got != tc.want {
			t.Errorf("%s: %s.%s not null = %v, want %v", tc.sql, tc.alias, tc.col, got, tc.want)
		}
	}
}

func TestDeriveEquivalence(t *testing.T) {
	p, _ := props(t, "SELECT * FROM a JOIN b ON a.id = b.a_id JOIN c ON c.p = b.a_id WHERE a.x = b.y")
	pr := plan.Derive(p.Root.Inputs[0], p.Meta)
	aid, baid, cp := colByName(t, p, "a", "id"), colByName(t, p, "b", "a_id"), colByName(t, p, "c", "p")
	if cls := pr.EquivOf(aid); !cls.Equals(plan.MakeColSet(aid, baid, cp)) {
		t.Errorf("class of a.id = %v, want {a.id, b.a_id, c.p}", cls.Ordered())
	}
	ax, by := colByName(t, p, "a", "x"), colByName(t, p, "b", "y")
	if !pr.EquivOf(ax).Equals(plan.MakeColSet(ax, by)) || pr.EquivOf(ax).Has(aid) {
		t.Errorf("class of a.x = %v", pr.EquivOf(ax).Ordered())
	}
	if cq := colByName(t, p, "c", "q"); !pr.EquivOf(cq).Equals(plan.MakeColSet(cq)) {
		t.Error("a column with no equality is alone in its class")
	}
	// Outer join conditions make no classes; equality across types none.
	p, _ = props(t, "SELECT * FROM a LEFT JOIN b ON a.id = b.a_id")
	if pr := plan.Derive(p.Root.Inputs[0], p.Meta); len(pr.Equiv) != 0 {
		t.Errorf("left join classes: %v", pr.Equiv)
	}
	p, _ = props(t, "SELECT * FROM a JOIN b ON a.n = b.y::text")
	if pr := plan.Derive(p.Root.Inputs[0], p.Meta); len(pr.Equiv) != 0 {
		t.Errorf("cast equality made a class: %v", pr.Equiv)
	}
}

func TestNullRejected(t *testing.T) {
	col := func(id plan.ColumnID) *plan.Expr { return plan.NewCol(id, catalog.Int) }
	one := plan.NewConst(catalog.Int, "1")
	op := func(name string, args ...*plan.Expr) *plan.Expr { return plan.NewOp(name, catalog.Bool, args...) }
	tests := []struct {
		name string
		e    *plan.Expr
		want []plan.ColumnID
	}{
		{"eq", op(plan.OpEq, col(1), col(2)), []plan.ColumnID{1, 2}},
		{"arith", op(plan.OpGt, plan.NewOp(plan.OpAdd, catalog.Int, col(1), one), one), []plan.ColumnID{1}},
		{"cast", op(plan.OpGt, &plan.Expr{Kind: plan.Cast, Typ: catalog.Int, Args: []*plan.Expr{col(3)}}, one), []plan.ColumnID{3}},
		{"and", op(plan.OpAnd, op(plan.OpEq, col(1), one), op(plan.OpEq, col(2), one)), []plan.ColumnID{1, 2}},
		{"or-common", op(plan.OpOr, op(plan.OpEq, col(1), one), op(plan.OpLt, col(1), col(2))), []plan.ColumnID{1}},
		{"is-not-null", op(plan.OpIsNotNull, col(4)), []plan.ColumnID{4}},
		{"is-null", op(plan.OpIsNull, col(4)), nil},
		{"not", op(plan.OpNot, op(plan.OpEq, col(1), one)), nil},
		{"is-distinct", op(plan.OpIsDistinct, col(1), one), nil},
		{"coalesce", op(plan.OpEq, &plan.Expr{Kind: plan.Func, Name: "coalesce", Typ: catalog.Int, Args: []*plan.Expr{col(1), one}}, one), nil},
		{"case", op(plan.OpEq, &plan.Expr{Kind: plan.Case, Typ: catalog.Int, Args: []*plan.Expr{op(plan.OpIsNull, col(1)), one, col(1)}, HasElse: true}, one), nil},
		{"is-not-true", op(plan.OpIsNotTrue, op(plan.OpEq, col(1), one)), nil},
		{"all", &plan.Expr{Kind: plan.Subquery, SubKind: plan.SubAll, SubOp: plan.OpNe, Args: []*plan.Expr{col(1)}, Sub: &plan.Node{Op: plan.OpValues}}, nil},
		{"any", &plan.Expr{Kind: plan.Subquery, SubKind: plan.SubAny, SubOp: plan.OpEq, Args: []*plan.Expr{col(1)}, Sub: &plan.Node{Op: plan.OpValues}}, []plan.ColumnID{1}},
	}
	for _, tc := range tests {
		if got := plan.NullRejected(tc.e).Ordered(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: NullRejected = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestCopyIsDeep(t *testing.T) {
	s, err := catalog.LoadDDL(ddl, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	p, err := planner.Plan(context.Background(), s, "SELECT x, count(*) FROM a WHERE x IN (SELECT y FROM b WHERE y > 1) GROUP BY x ORDER BY 2 LIMIT 3", planner.Options{SkipNormalize: true})
	if err != nil {
		t.Fatal(err)
	}
	before := p.Canonical()
	c := p.Root.Copy()
	c.WalkNodes(func(n *plan.Node) {
		n.Exprs(func(e **plan.Expr) {
			plan.WalkDeep(*e, func(x *plan.Expr) {
				if x.Kind == plan.Const {
					x.Value = "999"
				}
				if x.Kind == plan.Subquery {
					x.Sub.WalkNodes(func(m *plan.Node) { m.Preds = nil })
				}
			})
		})
		for i := range n.GroupBy {
			n.GroupBy[i] = 0
		}
	})
	if after := p.Canonical(); after != before {
		t.Errorf("mutating a copy changed the original:\n%s\n---\n%s", before, after)
	}
}

func TestCanonicalAndFingerprint(t *testing.T) {
	s, err := catalog.LoadDDL(ddl, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	plan1 := func(sql string) *plan.Plan {
		p, err := planner.Plan(context.Background(), s, sql, planner.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := plan1("SELECT x FROM a ORDER BY x DESC NULLS LAST")
	want := "ordered\nproject t1.x\n  sort t1.x desc nulls last\n    scan a as t1"
	if got := p.Canonical(); got != want {
		t.Errorf("canonical:\n%s\nwant\n%s", got, want)
	}
	if fp := p.Fingerprint(); len(fp) != 16 || fp != plan1("SELECT a.x AS y FROM a AS a ORDER BY 1 DESC NULLS LAST").Fingerprint() {
		t.Errorf("fingerprint %q not stable across aliases", fp)
	}
	if p.Fingerprint() == plan1("SELECT x FROM a ORDER BY x DESC").Fingerprint() {
		t.Error("NULLS LAST vs default NULLS FIRST for DESC share a fingerprint")
	}
	if plan1("SELECT x FROM a ORDER BY x").Fingerprint() != plan1("SELECT x FROM a ORDER BY x ASC NULLS LAST").Fingerprint() {
		t.Error("explicit default NULLS LAST changed the fingerprint")
	}
	if plan1("SELECT x FROM a").Fingerprint() == plan1("SELECT x FROM a ORDER BY x").Fingerprint() {
		t.Error("ordered and unordered share a fingerprint")
	}
	j := plan1("SELECT x FROM a WHERE x > 1").JSONTree()
	if j.Op != "project" || j.Detail != "t1.x" || len(j.Inputs) != 1 || j.Inputs[0].Op != "filter" || j.Inputs[0].Detail != "(t1.x >= 2)" {
		t.Errorf("JSONTree: %+v %+v", j, j.Inputs[0])
	}
	if e := plan1("SELECT x AS xx, n FROM a").Explain(); e[:len("output: xx, n\n")] != "output: xx, n\n" {
		t.Errorf("Explain: %q", e)
	}
}
