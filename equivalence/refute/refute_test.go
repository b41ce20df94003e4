package refute

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/internal/dataset"
	"github.com/pgequiv/pgequiv/internal/shareddata"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

func exampleSchema(t *testing.T) *catalog.Schema {
	t.Helper()
	s, err := catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustPlan(t *testing.T, s *catalog.Schema, sql string) *plan.Plan {
	t.Helper()
	p, err := planner.Plan(context.Background(), s, sql, planner.Options{})
	if err != nil {
		t.Fatalf("plan %q: %v", sql, err)
	}
	return p
}

// testOpts gives tests a generous budget so that results do not depend
// on machine load; the instance cap keeps them deterministic.
func testOpts() Options {
	return Options{Budget: 5 * time.Second, ShrinkBudget: 5 * time.Second, MaxInstances: 300, TrustForeignKeys: true, Seed: 1}
}

func TestRefutesDifferentPairs(t *testing.T) {
	s := exampleSchema(t)
	cases := []struct {
		ref, cand string
		maxRows   int
	}{
		{"SELECT COUNT(*) FROM dogs", "SELECT COUNT(*) FROM dogs WHERE age > 5", 2},
		{"SELECT name FROM dogs WHERE dog_id = 1", "SELECT name FROM dogs WHERE dog_id = 7", 2},
		{"SELECT name FROM dogs WHERE name LIKE 'Re%'", "SELECT name FROM dogs WHERE name LIKE 're%'", 2},
		{"SELECT owner_id FROM dogs", "SELECT DISTINCT owner_id FROM dogs", 3},
		{"SELECT name FROM dogs WHERE age >= 3", "SELECT name FROM dogs WHERE age > 3", 2},
		{"SELECT d.name FROM dogs d JOIN owners o ON d.owner_id = o.owner_id WHERE o.city = 'Oslo'",
			"SELECT d.name FROM dogs d JOIN owners o ON d.owner_id = o.owner_id WHERE o.city <> 'Oslo'", 2},
		{"SELECT name FROM dogs ORDER BY age", "SELECT name FROM dogs ORDER BY age DESC", 3},
		{"SELECT AVG(age) FROM dogs", "SELECT SUM(age) / COUNT(age) FROM dogs", 3},
		{"SELECT COUNT(age) FROM dogs", "SELECT COUNT(*) FROM dogs", 2},
	}
	for _, c := range cases {
		t.Run(c.cand, func(t *testing.T) {
			res, err := Refute(context.Background(), s, mustPlan(t, s, c.ref), mustPlan(t, s, c.cand), testOpts())
			if err != nil {
				t.Fatal(err)
			}
			if !res.Found {
				t.Fatalf("not refuted: %s", res.Reason)
			}
			ce := res.Counterexample
			if ce.Rows > c.maxRows {
				t.Errorf("counterexample has %d rows, want at most %d:\n%s", ce.Rows, c.maxRows, strings.Join(ce.Inserts, "\n"))
			}
			if msg := validate(s, ce.Database, true); msg != "" {
				t.Errorf("counterexample violates the schema: %s", msg)
			}
			// The counterexample must reproduce: both plans rerun on it differ.
			r1, err1 := exec.Execute(context.Background(), mustPlan(t, s, c.ref), ce.Database)
			r2, err2 := exec.Execute(context.Background(), mustPlan(t, s, c.cand), ce.Database)
			if err1 != nil || err2 != nil || !differs(r1, r2, false) {
				t.Errorf("counterexample does not reproduce: %v %v", err1, err2)
			}
			if len(ce.Inserts) == 0 && ce.Rows > 0 {
				t.Error("no INSERT statements for a non-empty database")
			}
		})
	}
}

// TestNeverRefutesEquivalent is the soundness check: pairs that are
// equivalent on every database of the schema must survive the search.
func TestNeverRefutesEquivalent(t *testing.T) {
	s := exampleSchema(t)
	pairs := [][2]string{
		{"SELECT COUNT(*) FROM dogs", "SELECT COUNT(dog_id) FROM dogs"},
		{"SELECT d.name, o.last_name FROM dogs d JOIN owners o ON d.owner_id = o.owner_id",
			"SELECT d.name, o.last_name FROM owners o JOIN dogs d ON o.owner_id = d.owner_id"},
		{"SELECT name FROM dogs WHERE age > 5 AND age < 9", "SELECT name FROM dogs WHERE age < 9 AND age > 5"},
		{"SELECT COUNT(*) FROM dogs d JOIN owners o ON d.owner_id = o.owner_id", "SELECT COUNT(*) FROM dogs"},
		{"SELECT name FROM dogs ORDER BY dog_id", "SELECT name FROM dogs ORDER BY dog_id ASC"},
		{"SELECT DISTINCT dog_id FROM dogs", "SELECT dog_id FROM dogs"},
		{"SELECT name FROM dogs WHERE age BETWEEN 2 AND 4", "SELECT name FROM dogs WHERE age >= 2 AND age <= 4"},
		{"SELECT owner_id, COUNT(*) FROM dogs GROUP BY owner_id", "SELECT owner_id, COUNT(dog_id) FROM dogs GROUP BY owner_id"},
	}
	for _, p := range pairs {
		res, err := Refute(context.Background(), s, mustPlan(t, s, p[0]), mustPlan(t, s, p[1]), testOpts())
		if err != nil {
			t.Fatal(err)
		}
		if res.Found {
			t.Errorf("equivalent pair refuted:\n  %s\n  %s\n%s", p[0], p[1], describe(res))
		}
		if res.Instances < 50 && !res.CannotExecute {
			t.Errorf("%s: only %d instances", p[1], res.Instances)
		}
	}
}

func describe(res Result) string {
	if res.Counterexample == nil {
		return res.Reason
	}
	ce := res.Counterexample
	return strings.Join(ce.Inserts, "\n") + "\nref: " + formatOut(ce.Reference) + "\ncand: " + formatOut(ce.Candidate)
}

func formatOut(o Output) string {
	rows := make([]string, len(o.Rows))
	for i, r := range o.Rows {
		rows[i] = "(" + strings.Join(r, ", ") + ")"
	}
	return strings.Join(rows, " ") + " [" + strconv.Itoa(o.Count) + " rows]"
}

// instances is the per-pair instance count of the soundness tests:
// REFUTE_INSTANCES raises it for a longer run.
func instances(def int) int {
	if v, err := strconv.Atoi(os.Getenv("REFUTE_INSTANCES")); err == nil && v > 0 {
		return v
	}
	return def
}

// TestCuratedCases: no case labelled equivalent is refuted, and the
// cases labelled not_equivalent that the search refutes are counted.
func TestCuratedCases(t *testing.T) {
	cf, err := dataset.ReadCasesFile(shareddata.Path(t, "equivalence/cases.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := catalog.LoadDDL(cf.Schema, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	var refuted, notEq, cannot int
	for _, c := range cf.Cases {
		ref, err1 := planner.Plan(context.Background(), s, c.Reference, planner.Options{})
		cand, err2 := planner.Plan(context.Background(), s, c.Candidate, planner.Options{})
		if err1 != nil || err2 != nil {
			continue
		}
		opts := testOpts()
		opts.MaxInstances = instances(300)
		opts.TrustForeignKeys = c.Policy["trust_foreign_keys"] != "false"
		opts.IgnoreColumnOrder = c.Policy["column_order"] == "ignore"
		res, err := Refute(context.Background(), s, ref, cand, opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.CannotExecute {
			cannot++
		}
		switch c.Expect {
		case dataset.Equivalent:
			if res.Found {
				t.Errorf("%s (line %d) is equivalent but was refuted:\n  %s\n  %s\n%s", c.ID, c.Line, c.Reference, c.Candidate, describe(res))
			}
		case dataset.NotEquivalent:
			notEq++
			if res.Found {
				refuted++
			}
		}
	}
	t.Logf("refuted %d of %d not_equivalent cases; %d of %d cases cannot execute", refuted, notEq, cannot, len(cf.Cases))
}

// TestGeneratorKeepsConstraints: every generated database satisfies the
// declared keys, NOT NULL, widths and (trusted) foreign keys.
func TestGeneratorKeepsConstraints(t *testing.T) {
	ddl := catalog.ExampleDDL() + `
CREATE TABLE codes (code char(3) PRIMARY KEY, label varchar(4) UNIQUE, amount numeric(4,1), parent char(3) REFERENCES codes (code));
CREATE TABLE pairs (a integer, b integer, PRIMARY KEY (a, b), FOREIGN KEY (a) REFERENCES owners (owner_id));`
	s, err := catalog.LoadDDL(ddl, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	p := mustPlan(t, s, "SELECT label FROM codes WHERE label LIKE 'ab%' AND amount > 12.5 AND code = 'XYZ'")
	g := newGenerator(s, constraints{trustFK: true}, collectLiterals(p))
	rowsSeen, nulls := 0, 0
	for i := range 500 {
		db := g.instance(7, i)
		if msg := validate(s, db, true); msg != "" {
			t.Fatalf("instance %d: %s", i, msg)
		}
		for _, rows := range db {
			rowsSeen += len(rows)
			for _, r := range rows {
				for _, v := range r {
					if v.IsNull() {
						nulls++
					}
				}
			}
		}
	}
	if rowsSeen < 1000 || nulls == 0 {
		t.Errorf("generator too timid: %d rows, %d NULLs in 500 databases", rowsSeen, nulls)
	}
	// The widths come from the catalog's TypeSQL: without them validate
	// would pass anything. (The catalog once dropped them, and the
	// refuter's counterexamples put 3-character values in char(1)
	// columns, which PostgreSQL refuses to load.)
	for i := range 50 {
		for _, row := range g.instance(9, i)["codes"] {
			if len(row[0].S) > 3 || strings.HasSuffix(row[0].S, " ") || (!row[1].IsNull() && len(row[1].S) > 4) {
				t.Fatalf("codes row %v does not fit char(3), varchar(4)", row)
			}
		}
	}
	// Determinism: the same seed and index give the same database.
	a, b := inserts(s, g.instance(3, 42), catalog.Postgres), inserts(s, g.instance(3, 42), catalog.Postgres)
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Error("generator is not deterministic")
	}
}

func TestCannotExecute(t *testing.T) {
	s := exampleSchema(t)
	res, err := Refute(context.Background(), s, mustPlan(t, s, "SELECT corr(age, dog_id) FROM dogs"),
		mustPlan(t, s, "SELECT corr(dog_id, age) FROM dogs"), testOpts())
	if err != nil {
		t.Fatal(err)
	}
	if res.Found || !res.CannotExecute || !strings.HasPrefix(res.Reason, "cannot execute: ") {
		t.Errorf("got %+v, want a cannot-execute reason", res)
	}
}

func TestDefaultBudget(t *testing.T) {
	s := exampleSchema(t)
	ref := mustPlan(t, s, "SELECT d.name, o.city FROM dogs d JOIN owners o ON d.owner_id = o.owner_id")
	cand := mustPlan(t, s, "SELECT d.name, o.city FROM owners o JOIN dogs d ON d.owner_id = o.owner_id")
	res, err := Refute(context.Background(), s, ref, cand, Options{TrustForeignKeys: true})
	if err != nil {
		t.Fatal(err)
	}
	// Generous bound: the default 20 ms budget plus scheduling noise.
	if res.Elapsed > 500*time.Millisecond {
		t.Errorf("search took %v with the default budget", res.Elapsed)
	}
	if res.Found {
		t.Errorf("commuted join refuted: %s", describe(res))
	}
}

func TestInsertsDialect(t *testing.T) {
	s := exampleSchema(t)
	db := exec.Database{"breeds": {{exec.Text("it's"), exec.Text("B")}}}
	got := inserts(s, db, catalog.Postgres)
	want := "INSERT INTO breeds (breed_code, breed_name) VALUES ('it''s', 'B');"
	if len(got) != 1 || got[0] != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if literal(exec.Bool(true), catalog.SQLite) != "1" || literal(exec.Bool(true), catalog.Postgres) != "TRUE" {
		t.Error("boolean literals by dialect")
	}
}

// TestProverSuitesNeverRefuted is the second soundness check: every pair
// of the prover suites was validated equivalent on PostgreSQL, so a
// refutation is a bug in the generator, the comparison or the executor.
// REFUTE_INSTANCES raises the instance count per pair (default 100).
func TestProverSuitesNeverRefuted(t *testing.T) {
	dir := shareddata.Path(t, "data/provers")
	n := instances(100)
	schemas := map[string]*catalog.Schema{}
	var pairsRun, cannot int
	for _, suite := range []string{"spark", "tpcc", "tpch", "spark_no_order_by", "tpcc_no_order_by", "tpch_no_order_by"} {
		pairs, err := dataset.ReadPairsFile(filepath.Join(dir, suite+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pairs {
			s, ok := schemas[p.DB]
			if !ok {
				ddl, err := os.ReadFile(filepath.Join(dir, "schemas", p.DB+".sql"))
				if err != nil {
					t.Fatal(err)
				}
				if s, err = catalog.LoadDDL(string(ddl), catalog.Postgres); err != nil {
					t.Fatal(err)
				}
				schemas[p.DB] = s
			}
			ref, err1 := planner.Plan(context.Background(), s, p.Reference, planner.Options{})
			cand, err2 := planner.Plan(context.Background(), s, p.Candidate, planner.Options{})
			if err1 != nil || err2 != nil {
				continue
			}
			opts := testOpts()
			opts.MaxInstances = n
			res, err := Refute(context.Background(), s, ref, cand, opts)
			if err != nil {
				t.Fatal(err)
			}
			pairsRun++
			if res.CannotExecute {
				cannot++
			}
			if res.Found {
				t.Errorf("%s/%s (validated equivalent) refuted:\n  %s\n  %s\n%s", suite, p.ID, oneLine(p.Reference), oneLine(p.Candidate), describe(res))
			}
		}
	}
	t.Logf("%d prover pairs searched, %d cannot execute", pairsRun, cannot)
}

// A counterexample names only the tables the queries read (and the
// parents their rows reference): rows elsewhere cannot matter, and
// minimization, cut short by its budget, may leave them. Spider's
// schemas describe SQLite's internal sqlite_sequence table, into which a
// real SQLite refuses INSERTs: such a counterexample did not load.
func TestCounterexampleOmitsUnreadTables(t *testing.T) {
	s, err := catalog.LoadDDL(`
CREATE TABLE country (code text, name text, PRIMARY KEY (code));
CREATE TABLE city (id numeric, countrycode text, PRIMARY KEY (id), FOREIGN KEY (countrycode) REFERENCES country (code));
CREATE TABLE sqlite_sequence (name text, seq text);
CREATE TABLE other (a numeric);`, catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	ref := mustPlan(t, s, "SELECT count(*) FROM city")
	cand := mustPlan(t, s, "SELECT count(*) FROM city WHERE id > 5")
	for _, trust := range []bool{false, true} {
		opts := testOpts()
		opts.Dialect, opts.TrustForeignKeys = catalog.SQLite, trust
		opts.ShrinkBudget = time.Nanosecond // no minimization: unread tables keep their generated rows
		res, err := Refute(context.Background(), s, ref, cand, opts)
		if err != nil || !res.Found {
			t.Fatalf("trust=%v: not refuted: %v %+v", trust, err, res)
		}
		text := strings.Join(res.Counterexample.Inserts, "\n")
		if strings.Contains(text, "sqlite_sequence") || strings.Contains(text, "INSERT INTO other") {
			t.Errorf("trust=%v: counterexample fills unread tables:\n%s", trust, text)
		}
		n := 0
		for _, rows := range res.Counterexample.Database {
			n += len(rows)
		}
		if n != res.Counterexample.Rows {
			t.Errorf("trust=%v: Rows = %d, database holds %d", trust, res.Counterexample.Rows, n)
		}
		if trust && len(res.Counterexample.Database["city"]) > 0 && strings.Contains(text, "INTO city") {
			for _, row := range res.Counterexample.Database["city"] {
				if !row[1].IsNull() && len(res.Counterexample.Database["country"]) == 0 {
					t.Errorf("trusted foreign key: city row without its country:\n%s", text)
				}
			}
		}
	}
}

// PostgreSQL compares char(n) values ignoring trailing blanks and pads
// them in output and for LIKE; the executor models that (exec's
// bpchar.go). c LIKE 'ab' and c LIKE 'ab%' differ on a row holding 'ab'.
// c = 'ab' and c = 'ab ' are one query on a char(3) column (the refuter
// once "refuted" the pair when the executor gave char(n) text
// semantics); the executor cannot execute the second (a blank-ended
// constant may be text after the planner substitutes it), so the pair is
// not searched.
func TestBlankPaddedChar(t *testing.T) {
	s, err := catalog.LoadDDL(`CREATE TABLE t (id integer PRIMARY KEY, c char(3) NOT NULL, v varchar(5))`, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ref, cand      string
		differ, cannot bool
	}{
		{"SELECT id FROM t WHERE c = 'ab'", "SELECT id FROM t WHERE c = 'ab '", false, true},
		{"SELECT id FROM t WHERE c IN ('a  ')", "SELECT id FROM t WHERE c = 'a'", false, true},
		{"SELECT id FROM t WHERE c = 'abc'", "SELECT id FROM t WHERE c = 'abd'", true, false},
		{"SELECT id FROM t WHERE c LIKE 'ab'", "SELECT id FROM t WHERE c LIKE 'ab%'", true, false},
		{"SELECT id FROM t WHERE c LIKE 'ab%'", "SELECT id FROM t WHERE c = 'ab'", true, false},
		{"SELECT length(c) FROM t", "SELECT 3 FROM t", true, false},
		{"SELECT c || 'x' FROM t", "SELECT c || 'x' FROM t WHERE c = c", false, false},
		{"SELECT DISTINCT c FROM t", "SELECT c FROM t GROUP BY c", false, false},
	} {
		res, err := Refute(context.Background(), s, mustPlan(t, s, c.ref), mustPlan(t, s, c.cand), testOpts())
		if err != nil {
			t.Fatal(err)
		}
		if res.CannotExecute != c.cannot {
			t.Errorf("%s vs %s: cannot execute = %v (%s), want %v", c.ref, c.cand, res.CannotExecute, res.Reason, c.cannot)
		}
		if res.Found != c.differ {
			t.Errorf("%s vs %s: found=%v, want %v", c.ref, c.cand, res.Found, c.differ)
		}
		if res.Found {
			for _, row := range res.Counterexample.Database["t"] {
				if strings.HasSuffix(row[1].S, " ") {
					t.Errorf("%s vs %s: char(3) value %q ends in a blank", c.ref, c.cand, row[1].S)
				}
			}
		}
	}
	g := newGenerator(s, constraints{}, collectLiterals(mustPlan(t, s, "SELECT id FROM t WHERE c = 'a b' OR c = ' a ' OR c LIKE 'x %'")))
	short := false
	for i := range 300 {
		for _, row := range g.instance(5, i)["t"] {
			if len(row[1].S) > 3 || strings.HasSuffix(row[1].S, " ") {
				t.Fatalf("instance %d: char(3) value %q", i, row[1].S)
			}
			short = short || len(row[1].S) < 3
		}
	}
	if !short {
		t.Error("no char(3) value shorter than 3 characters in 300 databases")
	}
}

// PostgreSQL's real holds single precision: r = 1.1 is false for every
// stored value (1.1 becomes 1.10000002384…), so the pair below is
// equivalent there; the executor computes in double precision, and the
// refuter once "refuted" it with r = 1.1. Generated real values are now
// ones a float4 holds exactly.
func TestRealColumnsHoldSinglePrecision(t *testing.T) {
	s, err := catalog.LoadDDL(`CREATE TABLE t (id integer PRIMARY KEY, r real NOT NULL, d double precision)`, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Refute(context.Background(), s, mustPlan(t, s, "SELECT id FROM t WHERE r = 1.1"), mustPlan(t, s, "SELECT id FROM t WHERE r <> r"), testOpts())
	if err != nil {
		t.Fatal(err)
	}
	if res.Found {
		t.Errorf("refuted with %v", res.Counterexample.Inserts)
	}
	res, err = Refute(context.Background(), s, mustPlan(t, s, "SELECT id FROM t WHERE r = 1.5"), mustPlan(t, s, "SELECT id FROM t WHERE r <> r"), testOpts())
	if err != nil || !res.Found {
		t.Errorf("r = 1.5 not refuted: %v %+v", err, res)
	}
	g := newGenerator(s, constraints{}, collectLiterals(mustPlan(t, s, "SELECT id FROM t WHERE r IN (0.1, 1.1, 2.75) OR d = 0.1")))
	for i := range 300 {
		for _, row := range g.instance(5, i)["t"] {
			if f := row[1].F; float64(float32(f)) != f {
				t.Fatalf("instance %d: real value %v is not single precision", i, f)
			}
		}
	}
}
