package refute

import (
	"context"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

const temporalDDL = `CREATE TABLE ev (
    id integer PRIMARY KEY,
    d date NOT NULL,
    ts timestamp NOT NULL,
    tz timestamptz,
    t0 timestamp(0)
);`

func temporalSchema(t *testing.T, d catalog.Dialect) *catalog.Schema {
	t.Helper()
	s, err := catalog.LoadDDL(temporalDDL, d)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRefutesAtDateBoundaries: pairs that differ only on the day a
// folded date expression lands on (a month end clamped, a year added, a
// midnight) are refuted, on a database of one row.
func TestRefutesAtDateBoundaries(t *testing.T) {
	s := temporalSchema(t, catalog.Postgres)
	// Each pair differs on one day or instant that only the folded
	// expression names: the queries' plain literals and their neighbours
	// do not reach it.
	pairs := [][2]string{
		{"SELECT id FROM ev WHERE d < date '1996-01-01' + interval '1' year", "SELECT id FROM ev WHERE d < date '1996-01-01' + interval '365 days'"},
		{"SELECT id FROM ev WHERE d < date '2020-01-31' + interval '1 month'", "SELECT id FROM ev WHERE d < date '2020-01-31' + interval '30 days'"},
		{"SELECT id FROM ev WHERE d >= date('1994-09-01 +08') + interval '3' month", "SELECT id FROM ev WHERE d > date('1994-09-01 +08') + interval '3' month"},
		{"SELECT id FROM ev WHERE ts <= date '2020-01-01' + interval '1 hour'", "SELECT id FROM ev WHERE ts < date '2020-01-01' + interval '1 hour'"},
		{"SELECT count(*) FROM ev WHERE ts < date '2020-03-31' - interval '1 month'", "SELECT count(*) FROM ev WHERE ts < date '2020-03-31' - interval '30 days'"},
	}
	for _, p := range pairs {
		res, err := Refute(context.Background(), s, mustPlan(t, s, p[0]), mustPlan(t, s, p[1]), testOpts())
		if err != nil {
			t.Fatal(err)
		}
		if !res.Found {
			t.Errorf("not refuted (%s):\n  %s\n  %s", res.Reason, p[0], p[1])
			continue
		}
		if ce := res.Counterexample; ce.Rows > 1 {
			t.Errorf("%s: counterexample of %d rows:\n%s", p[1], ce.Rows, strings.Join(ce.Inserts, "\n"))
		}
	}
}

// TestNeverRefutesEquivalentDates: rewrites that fold date arithmetic
// the way PostgreSQL evaluates it survive the search.
func TestNeverRefutesEquivalentDates(t *testing.T) {
	s := temporalSchema(t, catalog.Postgres)
	pairs := [][2]string{
		{"SELECT id FROM ev WHERE d < date '1996-01-01' + interval '1' year", "SELECT id FROM ev WHERE d < date '1997-01-01'"},
		{"SELECT id FROM ev WHERE d < date '2020-01-31' + interval '1 month'", "SELECT id FROM ev WHERE d < '2020-02-29'"},
		{"SELECT id FROM ev WHERE extract(year from d) = 1995", "SELECT id FROM ev WHERE d >= date '1995-01-01' AND d < date '1996-01-01'"},
		{"SELECT id FROM ev WHERE ts >= date '2020-01-01'", "SELECT id FROM ev WHERE ts >= '2020-01-01 00:00:00'"},
		{"SELECT id, d + 1 FROM ev", "SELECT id, d + interval '1 day' FROM ev WHERE false UNION ALL SELECT id, d + 1 FROM ev"},
		{"SELECT date_trunc('month', ts), count(*) FROM ev GROUP BY 1", "SELECT date_trunc('month', ts), count(id) FROM ev GROUP BY date_trunc('month', ts)"},
	}
	for _, p := range pairs {
		res, err := Refute(context.Background(), s, mustPlan(t, s, p[0]), mustPlan(t, s, p[1]), testOpts())
		if err != nil {
			t.Fatal(err)
		}
		if res.Found {
			t.Errorf("equivalent pair refuted:\n  %s\n  %s\n%s", p[0], p[1], describe(res))
		}
		if res.CannotExecute || res.Instances < 50 {
			t.Errorf("%s: %d instances (%s)", p[1], res.Instances, res.Reason)
		}
	}
}

// TestDateLiteralsFromExpressions: a column compared with a folded date
// expression gets its day and both neighbours in its literal pool.
func TestDateLiteralsFromExpressions(t *testing.T) {
	s := temporalSchema(t, catalog.Postgres)
	l := collectLiteralsFor(catalog.Postgres, mustPlan(t, s, "SELECT id FROM ev WHERE d < date('1996-01-01 +08') + interval '1' year AND ts > date '2020-01-31' + interval '1 month'"))
	has := func(k colKey, want string) bool {
		for _, v := range l.byCol[k] {
			if v.String() == want {
				return true
			}
		}
		return false
	}
	for _, c := range []struct {
		k    colKey
		want string
	}{
		{colKey{"ev", 1}, "1996-12-31"}, {colKey{"ev", 1}, "1997-01-01"}, {colKey{"ev", 1}, "1997-01-02"},
		// ts > 2020-02-29 00:00:00 is normalized to ts >= 2020-02-29
		// 00:00:00.000001 (timestamp-strict-bound): the bound and the
		// value just outside it.
		{colKey{"ev", 2}, "2020-02-29 00:00:00.000001"}, {colKey{"ev", 2}, "2020-02-29 00:00:00"},
		{colKey{"ev", 2}, "2020-02-28 23:59:59.000001"}, {colKey{"ev", 2}, "2020-02-29 00:00:01.000001"},
	} {
		if !has(c.k, c.want) {
			t.Errorf("column %v: %s not among %v", c.k, c.want, l.byCol[c.k])
		}
	}
}

// TestTimestampColumnsGetValues: PostgreSQL timestamp columns hold
// values, timestamptz columns UTC instants (Value.B set: written with
// their +00 offset, never read in the session's TimeZone), and
// timestamp(0) (rounds what is stored) stays NULL. Every SQLite date-time
// column holds values: SQLite stores them as the text given, whatever
// the declared type.
func TestTimestampColumnsGetValues(t *testing.T) {
	for _, d := range []catalog.Dialect{catalog.Postgres, catalog.SQLite} {
		s := temporalSchema(t, d)
		g := newGenerator(s, constraints{trustFK: true}, collectLiteralsFor(d))
		var ts, tz, t0, local int
		for i := range 50 {
			for _, row := range g.instance(1, i)["ev"] {
				if row[2].K == exec.KTimestamp {
					ts++
				}
				if !row[3].IsNull() {
					tz++
					if row[3].K != exec.KTimestamp || !row[3].B {
						local++
					}
				}
				if !row[4].IsNull() {
					t0++
				}
			}
		}
		lite := d == catalog.SQLite
		if ts == 0 || tz == 0 || (t0 > 0) != lite || (local > 0) != lite {
			t.Errorf("%s: %d timestamps, %d timestamptz values (%d not instants), %d timestamp(0) values", d, ts, tz, local, t0)
		}
		if !lite {
			row := []exec.Value{exec.Int(1), exec.Date(0), exec.Timestamp(0), exec.Timestamp(0), exec.Null}
			if got := inserts(s, exec.Database{"ev": {row}}, d)[0]; !strings.Contains(got, "'1970-01-01 00:00:00', '1970-01-01 00:00:00', NULL") {
				t.Errorf("a local timestamp in the timestamptz column passed unnoticed: %s", got)
			}
			if msg := validate(s, exec.Database{"ev": {row}}, true); !strings.Contains(msg, "ev.tz does not fit") {
				t.Errorf("a timestamp without its instant in a timestamptz column: validate says %q", msg)
			}
			row[3].B = true
			if msg := validate(s, exec.Database{"ev": {row}}, true); msg != "" {
				t.Errorf("an instant in a timestamptz column: validate says %q", msg)
			}
			if got := inserts(s, exec.Database{"ev": {row}}, d)[0]; !strings.Contains(got, "'1970-01-01 00:00:00+00'") {
				t.Errorf("an instant is written without its offset: %s", got)
			}
		}
	}
}
