package model_test

import (
	"context"
	"math"
	"testing"

	"github.com/pgequiv/pgequiv/gmn/model"
	"github.com/pgequiv/pgequiv/gmn/plangraph"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

const ddl = `
CREATE TABLE student (stuid numeric, lname text, fname text, age numeric, sex text, PRIMARY KEY (stuid));
CREATE TABLE pets (petid numeric, pettype text, weight numeric, PRIMARY KEY (petid));
`

func TestDefaultScoresPlans(t *testing.T) {
	m, err := model.Default()
	if err != nil {
		t.Fatal(err)
	}
	if m2, _ := model.Default(); m2 != m {
		t.Fatal("Default loaded twice")
	}
	if m.Config().NumTypes != plangraph.NumTypes {
		t.Fatalf("NumTypes %d, vocabulary %d", m.Config().NumTypes, plangraph.NumTypes)
	}
	s, err := catalog.LoadDDL(ddl, catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	mustPlan := func(sql string) *plangraph.Program {
		p, err := planner.Plan(ctx, s, sql, planner.Options{})
		if err != nil {
			t.Fatal(err)
		}
		pr, err := plangraph.BuildProgram(p)
		if err != nil {
			t.Fatal(err)
		}
		return pr
	}
	a := mustPlan("SELECT fname FROM student WHERE age > 20")
	same := mustPlan("SELECT s.fname FROM student AS s WHERE 20 < s.age")
	other := mustPlan("SELECT count(*) FROM pets GROUP BY pettype")
	const tol = 1e-12
	if v, err := model.Score(m, a, same); err != nil || math.Abs(v-1) > tol {
		t.Fatalf("equal plans scored %g (err %v), want 1", v, err)
	}
	v, err := model.Score(m, a, other)
	if err != nil || !(v >= 0 && v < 1) {
		t.Fatalf("different plans scored %g (err %v)", v, err)
	}
	p1, _ := planner.Plan(ctx, s, "SELECT fname FROM student WHERE age > 20", planner.Options{})
	p2, _ := planner.Plan(ctx, s, "SELECT count(*) FROM pets GROUP BY pettype", planner.Options{})
	if w, err := model.ScorePlans(m, p1, p2); err != nil || math.Abs(w-v) > tol {
		t.Fatalf("ScorePlans = %g (err %v), Score = %g", w, err, v)
	}
	if _, err := model.ScorePlans(m, nil, p2); err == nil {
		t.Fatal("nil plan accepted")
	}
}
