package refute

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// TestGeneratorRecycleSameDatabases: a generator whose caller recycles
// every database draws the databases one that allocates each afresh
// draws, and a database kept (keep) is not changed by those drawn after.
func TestGeneratorRecycleSameDatabases(t *testing.T) {
	ddl := catalog.ExampleDDL() + `
CREATE TABLE codes (code char(3) PRIMARY KEY, label varchar(4) UNIQUE, amount numeric(4,1), parent char(3) REFERENCES codes (code));
CREATE TABLE pairs (a integer, b integer, PRIMARY KEY (a, b), FOREIGN KEY (a) REFERENCES owners (owner_id));`
	s, err := catalog.LoadDDL(ddl, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	lits := collectLiterals(mustPlan(t, s, "SELECT label FROM codes WHERE label LIKE 'ab%' AND amount > 12.5 AND code = 'XYZ'"))
	for _, rules := range []constraints{{trustFK: true}, {}, {noNulls: true, nonEmpty: true}} {
		fresh, recycled := newGenerator(s, rules, lits), newGenerator(s, rules, lits)
		type kept struct {
			i    int
			db   exec.Database
			want string
		}
		var keeps []kept
		for i := range 300 {
			want := dbString(fresh.instance(3, i))
			db := recycled.instance(3, i)
			if got := dbString(db); got != want {
				t.Fatalf("rules %+v, database %d recycled:\n got %s\nwant %s", rules, i, got, want)
			}
			if i%37 == 5 {
				recycled.keep()
				keeps = append(keeps, kept{i, db, want})
				continue
			}
			recycled.recycle()
		}
		for _, k := range keeps {
			if got := dbString(k.db); got != k.want {
				t.Errorf("rules %+v: kept database %d changed:\n got %s\nwant %s", rules, k.i, got, k.want)
			}
		}
	}
}

// dbString prints db's tables in name order, with each value's kind.
func dbString(db exec.Database) string {
	names := make([]string, 0, len(db))
	for n := range db {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s:", n)
		for _, row := range db[n] {
			for _, v := range row {
				fmt.Fprintf(&b, " %d/%s", v.K, v.String())
			}
			b.WriteString(";")
		}
		b.WriteString("\n")
	}
	return b.String()
}
