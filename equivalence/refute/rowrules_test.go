package refute

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// The constraint-rich schema of the row-rule tests, as each engine
// declares it (ruleDDL) and as the catalog models it: plain DDL loaded
// with LoadDDL (ruleCatalogDDL), then the facts the loader of this
// branch does not read set by hand (withRuleFacts), the way the catalog
// loader fills them.
var ruleDDL = map[catalog.Dialect]string{
	catalog.Postgres: `
CREATE DOMAIN posint AS integer NOT NULL CHECK (VALUE > 0);
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE item (
  id integer PRIMARY KEY,
  sku text NOT NULL,
  qty integer NOT NULL CHECK (qty > 0),
  price numeric(10,2) CHECK (price >= 0),
  lo integer,
  hi integer,
  active boolean NOT NULL,
  stock posint,
  mood mood,
  total numeric GENERATED ALWAYS AS (price * qty) STORED,
  CONSTRAINT lo_hi CHECK (lo <= hi)
);
CREATE UNIQUE INDEX item_sku ON item (lower(sku));
CREATE UNIQUE INDEX item_active_lo ON item (lo) WHERE active;
CREATE TABLE ord (
  id integer PRIMARY KEY,
  item_id integer REFERENCES item (id),
  n integer NOT NULL CHECK (n BETWEEN 1 AND 5),
  note varchar(3) CHECK (note <> '')
);
CREATE TABLE blank (id integer PRIMARY KEY, v integer, CHECK (false));
CREATE TABLE slot (id integer PRIMARY KEY, pos integer, item_id integer REFERENCES item (id) DEFERRABLE INITIALLY DEFERRED,
  UNIQUE (pos) DEFERRABLE INITIALLY DEFERRED);
CREATE TABLE ev (id integer NOT NULL, k integer) PARTITION BY RANGE (k);
CREATE TABLE ev_low PARTITION OF ev FOR VALUES FROM (0) TO (3);
`,
	catalog.SQLite: `
CREATE TABLE item (
  id integer PRIMARY KEY,
  sku text NOT NULL,
  qty integer NOT NULL CHECK (qty > 0),
  price numeric(10,2) CHECK (price >= 0),
  lo integer,
  hi integer,
  active boolean NOT NULL,
  stock integer NOT NULL CHECK (stock > 0),
  mood text CHECK (mood IN ('sad', 'ok', 'happy')),
  total numeric GENERATED ALWAYS AS (price * qty) STORED,
  CONSTRAINT lo_hi CHECK (lo <= hi)
);
CREATE UNIQUE INDEX item_sku ON item (lower(sku));
CREATE UNIQUE INDEX item_active_lo ON item (lo) WHERE active;
CREATE TABLE ord (
  id integer PRIMARY KEY,
  item_id integer REFERENCES item (id),
  n integer NOT NULL CHECK (n BETWEEN 1 AND 5),
  note varchar(3) CHECK (note <> '')
);
CREATE TABLE blank (id integer PRIMARY KEY, v integer, CHECK (false));
`,
}

const ruleCatalogDDL = `
CREATE TABLE item (id integer PRIMARY KEY, sku text NOT NULL, qty integer NOT NULL, price numeric(10,2),
  lo integer, hi integer, active boolean NOT NULL, stock integer NOT NULL, mood text, total numeric);
CREATE TABLE ord (id integer PRIMARY KEY, item_id integer REFERENCES item (id), n integer NOT NULL, note varchar(3));
CREATE TABLE blank (id integer PRIMARY KEY, v integer);
`

const rulePartitionDDL = `
CREATE TABLE slot (id integer PRIMARY KEY, pos integer, item_id integer);
CREATE TABLE ev (id integer NOT NULL, k integer);
CREATE TABLE ev_low (id integer NOT NULL, k integer);
`

// ruleSchema is the constraint-rich schema in dialect d.
func ruleSchema(t *testing.T, d catalog.Dialect) *catalog.Schema {
	t.Helper()
	ddl := ruleCatalogDDL
	if d == catalog.Postgres {
		ddl += rulePartitionDDL
	}
	s, err := catalog.LoadDDL(ddl, d)
	if err != nil {
		t.Fatal(err)
	}
	return withRuleFacts(t, s, func(name string) func(*catalog.Table) {
		return map[string]func(*catalog.Table){
			"item": func(tb *catalog.Table) {
				tb.Checks = []catalog.Check{{Expr: "qty > 0"}, {Expr: "price >= 0"}, {Name: "lo_hi", Expr: "lo <= hi"}, {Expr: "stock > 0"}}
				col(t, tb, "stock").Domain = "posint"
				if d == catalog.Postgres {
					col(t, tb, "mood").Enum = []string{"sad", "ok", "happy"}
				} else {
					tb.Checks = append(tb.Checks, catalog.Check{Expr: "mood IN ('sad', 'ok', 'happy')"})
				}
				col(t, tb, "total").Generated = "price * qty"
				tb.UniqueIndexes = []catalog.UniqueIndex{
					{Name: "item_sku", Exprs: []string{"lower(sku)"}, Columns: []int{-1}},
					{Name: "item_active_lo", Exprs: []string{"lo"}, Columns: []int{col(t, tb, "lo").Ordinal}, Where: "active"},
				}
			},
			"ord": func(tb *catalog.Table) {
				tb.Checks = []catalog.Check{{Expr: "n BETWEEN 1 AND 5"}, {Expr: "note <> ''"}}
			},
			"blank": func(tb *catalog.Table) { tb.Checks = []catalog.Check{{Expr: "false"}} },
			"slot": func(tb *catalog.Table) {
				tb.DeferrableKeys = [][]int{{1}}
				tb.DeferrableForeignKeys = []catalog.ForeignKey{{Columns: []int{2}, RefTable: "item", RefColumns: []int{0}}}
			},
			"ev": func(tb *catalog.Table) { tb.Partitioned = true },
			"ev_low": func(tb *catalog.Table) {
				tb.Inherits = []string{"ev"}
				tb.PartitionBound = "k IS NOT NULL AND k >= 0 AND k < 3"
			},
		}[name]
	})
}

// withRuleFacts returns s rebuilt after set(name) (when non-nil) changed
// each table: NewSchema again, so that the fingerprint covers the facts.
func withRuleFacts(t *testing.T, s *catalog.Schema, set func(name string) func(*catalog.Table)) *catalog.Schema {
	t.Helper()
	for _, tb := range s.Tables {
		if f := set(tb.Name); f != nil {
			f(tb)
		}
	}
	out, err := catalog.NewSchema(s.Dialect, s.Tables)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func col(t *testing.T, tb *catalog.Table, name string) *catalog.Column {
	t.Helper()
	for i := range tb.Columns {
		if tb.Columns[i].Name == name {
			return &tb.Columns[i]
		}
	}
	t.Fatalf("table %s has no column %s", tb.Name, name)
	return nil
}

// ruleSeedQuery puts illegal values in the generator's literal pools: a
// non-positive qty, a negative price, a label that is not one, a second
// spelling of one sku.
const ruleSeedQuery = `SELECT i.id FROM item i, ord o, blank x WHERE i.qty IN (-1, 0, 1, 2) AND i.price IN (-5, 0, 1.5)
 AND i.sku IN ('abc', 'ABC', 'Abc') AND i.lo IN (3, 4) AND i.hi IN (2, 3) AND i.total = 7 AND o.n IN (0, 5, 6)
 AND o.note IN ('', 'x') AND x.v = 1`

// ruleTiers are the rule sets the tests generate under: every tier and
// mode of a search.
func ruleTiers(trustOnly bool) []constraints {
	out := []constraints{typical(nil), {trustFK: true}, {trustFK: true, noNulls: true}, {trustFK: true, nonEmpty: true}}
	if !trustOnly {
		out = append(out, constraints{})
	}
	return out
}

// TestGeneratorKeepsRowRules checks, without an engine, that every
// generated database keeps the row rules and that they bite: the rules'
// own validation passes, no table breaks a rule that the seeded literals
// would break, and generated values are computed.
func TestGeneratorKeepsRowRules(t *testing.T) {
	for _, d := range []catalog.Dialect{catalog.Postgres, catalog.SQLite} {
		s := ruleSchema(t, d)
		seed := ruleSeedQuery
		if d == catalog.Postgres {
			seed += " AND i.mood IN ('ok', 'bogus')"
		}
		lits := collectLiteralsFor(d, mustPlan(t, s, seed))
		s = generationSchema(s) // as a search does
		rows := 0
		for _, rules := range ruleTiers(false) {
			g := newGenerators(s, lits, rules)[0]
			for i := range 300 {
				db := g.instance(5, i)
				if g.cannot != "" {
					t.Fatalf("%s: cannot: %s", d, g.cannot)
				}
				if msg := validate(s, db, rules.trustFK); msg != "" {
					t.Fatalf("%s %+v instance %d: %s", d, rules, i, msg)
				}
				if len(db["blank"]) > 0 || len(db["ev"]) > 0 {
					t.Fatalf("%s: rows in a table that cannot hold any: %v", d, db)
				}
				for _, row := range db["item"] {
					rows++
					if row[2].I <= 0 {
						t.Fatalf("%s: qty %v", d, row[2])
					}
					if !row[3].IsNull() && !row[9].IsNull() && row[9].String() == "" {
						t.Fatalf("%s: total not computed: %v", d, row)
					}
					if d == catalog.Postgres && !row[8].IsNull() && !isLabel(&s.Table("item").Columns[8], row[8]) {
						t.Fatalf("mood %v is not a label", row[8])
					}
				}
			}
		}
		if rows < 200 {
			t.Errorf("%s: only %d item rows generated", d, rows)
		}
	}
}

// TestUnmodelledRulesRefuse: a generated column or CHECK the executor
// cannot evaluate makes the search refuse, naming it.
func TestUnmodelledRulesRefuse(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"check", "CHECK"}, {"generated", "generated"}, {"unmodelled", "row-level policy"},
	} {
		s, err := catalog.LoadDDL("CREATE TABLE t (id integer PRIMARY KEY, a integer, g integer);", catalog.Postgres)
		if err != nil {
			t.Fatal(err)
		}
		s = withRuleFacts(t, s, func(string) func(*catalog.Table) {
			return func(tb *catalog.Table) {
				switch c.name {
				case "check":
					tb.Checks = []catalog.Check{{Expr: "a > (SELECT 1 FROM no_such_table)"}}
				case "generated":
					tb.Columns[2].Generated = "no_such_function(a)"
				default:
					tb.Unmodelled = []string{"row-level policy at schema.sql:3"}
				}
			}
		})
		res, err := Refute(context.Background(), s, mustPlan(t, s, "SELECT a FROM t"), mustPlan(t, s, "SELECT a FROM t WHERE a > 1"), testOpts())
		if err != nil {
			t.Fatal(err)
		}
		if res.Found || !res.CannotExecute || !strings.Contains(res.Reason, c.want) && !strings.Contains(res.Reason, "not modelled") {
			t.Errorf("%s: %s", c.name, describe(res))
		}
	}
}

// ruleRows counts the rows of db.
func ruleRows(db exec.Database) int {
	n := 0
	for _, rows := range db {
		n += len(rows)
	}
	return n
}

// TestPartitionAndChainKeepRowRules: the other searches over generated
// databases (PartitionPlans, Chain) keep the row rules too: filters a
// CHECK makes redundant stay in one class, and a chain step across
// them finds no counterexample.
func TestPartitionAndChainKeepRowRules(t *testing.T) {
	ctx := context.Background()
	s := ruleSchema(t, catalog.Postgres)
	plans := []*plan.Plan{
		mustPlan(t, s, "SELECT id FROM item WHERE qty > 0"),
		mustPlan(t, s, "SELECT id FROM item"),
		mustPlan(t, s, "SELECT id FROM item WHERE qty > 1"),
		mustPlan(t, s, "SELECT id FROM item WHERE stock >= 1 AND (price >= 0 OR price IS NULL)"),
	}
	part, err := PartitionPlans(ctx, s, plans, testOpts())
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(part.Classes) != "[[0 1 3] [2]]" {
		t.Errorf("classes %v, want [[0 1 3] [2]] (cannot execute: %v)", part.Classes, part.CannotExecute)
	}
	steps, err := Chain(ctx, s, plans[:2], 200, testOpts(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ce := steps[0].Counterexample; ce != nil || steps[0].CannotExecute {
		t.Errorf("chain step: %v %s", ce, steps[0].Reason)
	}
}
