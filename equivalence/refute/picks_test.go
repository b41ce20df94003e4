package refute

import (
	"context"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// SQLite's scalar subquery of several rows takes one of them, which the
// query does not decide: a database is a counterexample only when every
// choice shows the difference (picks.go).
func TestScalarSubqueryPicks(t *testing.T) {
	s, err := catalog.LoadDDL(`CREATE TABLE airports (City TEXT, AirportCode TEXT PRIMARY KEY);
CREATE TABLE flights (Airline INTEGER, FlightNo INTEGER, DestAirport TEXT, PRIMARY KEY (Airline, FlightNo));`, catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	join := mustPlan(t, s, "SELECT COUNT(*) FROM flights JOIN airports ON flights.DestAirport = airports.AirportCode WHERE airports.City = 'Aberdeen'")
	scalar := mustPlan(t, s, "SELECT COUNT(*) FROM flights WHERE DestAirport = (SELECT AirportCode FROM airports WHERE City = 'Aberdeen')")
	two := func(second int64) exec.Database {
		return exec.Database{
			"airports": {{exec.Text("Aberdeen"), exec.Text("A1")}, {exec.Text("Aberdeen"), exec.Text("A2")}},
			"flights":  {{exec.Int(1), exec.Int(1), exec.Text("A1")}, {exec.Int(1), exec.Int(second), exec.Text("A2")}},
		}
	}
	cases := []struct {
		name string
		db   exec.Database
		want outcomeKind
	}{
		// Two Aberdeen airports with a flight each: the join counts 2,
		// the scalar subquery 1 whichever airport it takes.
		{"every choice differs", two(2), differ},
		// One of them has no flight: the scalar side counts 1 or 0, the
		// join 1: whether they differ is SQLite's choice.
		{"a choice agrees", exec.Database{
			"airports": {{exec.Text("Aberdeen"), exec.Text("A1")}, {exec.Text("Aberdeen"), exec.Text("A2")}},
			"flights":  {{exec.Int(1), exec.Int(1), exec.Text("A1")}},
		}, skip},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmp := &comparer{ref: join, cand: scalar, opts: testOpts().withDefaults(), engine: exec.Options{Dialect: catalog.SQLite}}
			cmp.lite = exec.SQLiteConverter{}
			out, err := cmp.run(context.Background(), c.db)
			if err != nil {
				t.Fatal(err)
			}
			if out.kind != c.want {
				t.Errorf("outcome %v, want %v", out.kind, c.want)
			}
		})
	}
}
