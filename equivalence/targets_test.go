package equivalence_test

import (
	"context"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// targetsDDL: a key, a NOT NULL grouping column, nullable values, a
// date-time column (%s: its declared type), a table for IN subqueries,
// and a table without a key for window frames.
const targetsDDL = `CREATE TABLE t (id integer PRIMARY KEY, a integer NOT NULL, x integer, y integer, k integer, d %s);
CREATE TABLE u (id integer PRIMARY KEY, y integer);
CREATE TABLE w (k integer NOT NULL, x integer NOT NULL);`

// TestJudgeRefutesAtBoundaries: under the judge's defaults (budget,
// instance count, seed), pairs that differ only at a boundary the
// queries name are not_equivalent with a counterexample (issue 23 item
// 3): a group of exactly k rows, two distinct values, a duplicate, peers
// of a window's ORDER BY, a non-NULL SQLite DATETIME. SQLite's
// counterexamples are replayed on SQLite itself, where the two queries
// must differ too.
func TestJudgeRefutesAtBoundaries(t *testing.T) {
	pairs := []struct {
		name, ref, cand string
	}{
		{"having count > 3", "SELECT a, count(*) FROM t GROUP BY a HAVING count(*) > 3", "SELECT a, count(*) FROM t GROUP BY a HAVING count(*) >= 3"},
		{"having count > 10", "SELECT a, count(*) FROM t GROUP BY a HAVING count(*) > 10", "SELECT a, count(*) FROM t GROUP BY a HAVING count(*) >= 10"},
		{"having count > 20", "SELECT a, count(*) FROM t GROUP BY a HAVING count(*) > 20", "SELECT a, count(*) FROM t GROUP BY a HAVING count(*) >= 20"},
		{"min vs max", "SELECT min(x) FROM t", "SELECT max(x) FROM t"},
		{"grouped min vs max", "SELECT a, min(x) FROM t GROUP BY a", "SELECT a, max(x) FROM t GROUP BY a"},
		{"distinct with IN", "SELECT DISTINCT t.x FROM t WHERE t.y IN (SELECT u.y FROM u)", "SELECT t.x FROM t WHERE t.y IN (SELECT u.y FROM u)"},
		{"window rows vs range", "SELECT k, sum(x) OVER (ORDER BY k ROWS UNBOUNDED PRECEDING) FROM w", "SELECT k, sum(x) OVER (ORDER BY k RANGE UNBOUNDED PRECEDING) FROM w"},
		{"datetime is null", "SELECT count(*) FROM t", "SELECT count(*) FROM t WHERE d IS NULL"},
		// Which row LIMIT 1 keeps is the engine's choice; that it keeps
		// one of two is not.
		{"limit through unordered rows", "SELECT x FROM t WHERE a > 0", "SELECT x FROM t WHERE a > 0 LIMIT 1"},
	}
	for _, d := range []catalog.Dialect{catalog.Postgres, catalog.SQLite} {
		typ := "timestamp"
		if d == catalog.SQLite {
			typ = "DATETIME"
		}
		ddl := strings.Replace(targetsDDL, "%s", typ, 1)
		s, err := catalog.LoadDDL(ddl, d)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range pairs {
			t.Run(d.String()+"/"+c.name, func(t *testing.T) {
				v, err := equivalence.Judge(context.Background(), s, c.ref, c.cand, equivalence.Options{})
				if err != nil {
					t.Fatal(err)
				}
				ce := v.Counterexample
				if v.Label != equivalence.NotEquivalent || ce == nil {
					t.Fatalf("%s, want not_equivalent with a counterexample (search %+v)", v.Summary(), v.Search)
				}
				if d != catalog.SQLite {
					return
				}
				db := memorySQLite(t, ddl+"\n"+strings.Join(ce.Inserts, "\n"))
				if rowsOf(t, db, c.ref) == rowsOf(t, db, c.cand) {
					t.Errorf("SQLite shows no difference on the counterexample:\n%s", ce.Detail())
				}
			})
		}
	}
}

// TestJudgeRefutesThroughJoins: SQLite pairs whose difference needs
// rows that join and pass the queries' filters at once, found under the
// judge's defaults by the seeds built on the queries' literals, the
// emptied referenced table (an orphan, which SQLite keeps), and the
// enumerated choice of a scalar subquery's row; each replayed on SQLite.
func TestJudgeRefutesThroughJoins(t *testing.T) {
	ddl := `CREATE TABLE airlines (uid INTEGER PRIMARY KEY, Airline TEXT);
CREATE TABLE airports (City TEXT, AirportCode TEXT PRIMARY KEY);
CREATE TABLE flights (Airline INTEGER, FlightNo INTEGER, SourceAirport TEXT, DestAirport TEXT,
  PRIMARY KEY (Airline, FlightNo), FOREIGN KEY (SourceAirport) REFERENCES airports (AirportCode),
  FOREIGN KEY (DestAirport) REFERENCES airports (AirportCode));
CREATE TABLE battle (id INTEGER PRIMARY KEY, name TEXT, bulgarian_commander TEXT, latin_commander TEXT);
CREATE TABLE country (Code TEXT PRIMARY KEY, Name TEXT, Continent TEXT, Population INTEGER);`
	s, err := catalog.LoadDDL(ddl, catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	pairs := []struct{ name, ref, cand string }{
		{"distinct under two literal filters",
			"SELECT name FROM battle WHERE bulgarian_commander = 'Kaloyan' AND latin_commander = 'Baldwin I'",
			"SELECT DISTINCT name FROM battle WHERE bulgarian_commander = 'Kaloyan' AND latin_commander = 'Baldwin I'"},
		{"join through an unenforced foreign key",
			"SELECT count(*) FROM airlines JOIN flights ON airlines.uid = flights.Airline WHERE airlines.Airline = 'United Airlines' AND flights.DestAirport = 'ASY'",
			"SELECT count(*) FROM flights JOIN airports ON flights.DestAirport = airports.AirportCode JOIN airlines ON flights.Airline = airlines.uid WHERE airlines.Airline = 'United Airlines' AND airports.AirportCode = 'ASY'"},
		{"scalar subquery of several rows vs join",
			"SELECT count(*) FROM flights JOIN airports ON flights.DestAirport = airports.AirportCode WHERE airports.City = 'Aberdeen'",
			"SELECT count(*) FROM flights WHERE DestAirport = (SELECT AirportCode FROM airports WHERE City = 'Aberdeen')"},
		{"min vs max over the rows of another literal",
			"SELECT Name FROM country WHERE Continent = 'Asia' AND Population > (SELECT min(Population) FROM country WHERE Continent = 'Africa')",
			"SELECT Name FROM country WHERE Continent = 'Asia' AND Population > (SELECT max(Population) FROM country WHERE Continent = 'Africa')"},
		{"having over a composite key",
			"SELECT Airline FROM flights GROUP BY Airline HAVING count(*) > 10",
			"SELECT Airline FROM flights GROUP BY Airline HAVING count(*) >= 10"},
	}
	for _, c := range pairs {
		t.Run(c.name, func(t *testing.T) {
			v, err := equivalence.Judge(context.Background(), s, c.ref, c.cand, equivalence.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ce := v.Counterexample
			if v.Label != equivalence.NotEquivalent || ce == nil {
				t.Fatalf("%s, want not_equivalent with a counterexample (search %+v)", v.Summary(), v.Search)
			}
			db := memorySQLite(t, ddl+"\n"+strings.Join(ce.Inserts, "\n"))
			if rowsOf(t, db, c.ref) == rowsOf(t, db, c.cand) {
				t.Errorf("SQLite shows no difference on the counterexample:\n%s", ce.Detail())
			}
		})
	}
}
