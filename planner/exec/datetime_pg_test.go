package exec_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

const datetimeDDL = `CREATE TABLE ev (
    ev_id integer PRIMARY KEY,
    ev_d date,
    ev_e date NOT NULL,
    ev_ts timestamp,
    ev_t2 timestamp NOT NULL,
    ev_n integer
);`

// datetimePools are month ends, leap days, the days around them, times
// of day and fractions of a second: where date arithmetic goes wrong.
var datetimePools = map[catalog.Type][]string{
	catalog.Date: {"2020-01-31", "2020-02-29", "2019-02-28", "2021-03-31", "1999-12-31", "2000-02-29", "2020-03-01",
		"1970-01-01", "1969-12-31", "1996-01-01", "2020-12-31", "2021-01-04"},
	catalog.Timestamp: {"2020-01-31 00:00:00", "2020-02-29 23:59:59", "2020-01-01 12:30:00.5", "1999-12-31 23:59:59.999999",
		"2021-03-31 10:00:00", "2020-03-01 00:00:00", "1969-12-31 23:00:00", "2019-02-28 00:00:01"},
	catalog.Int: {"-1", "0", "1", "29", "31", "-365", "366"},
}

// datetimeQueries exercise each date, timestamp and interval operation
// the executor models; TestDifferentialDatetime compares them with
// PostgreSQL.
var datetimeQueries = []string{
	// date/timestamp ± interval: months first, clamped to the month's end.
	"SELECT ev_id, ev_d + interval '1 month', ev_d - interval '1 month', ev_d + interval '1 year', ev_d + interval '-1 month' FROM ev",
	"SELECT ev_id, ev_ts + interval '1 month 2 days 03:04:05', ev_ts - interval '36 hours', ev_t2 + interval '1 day' FROM ev",
	"SELECT ev_id, ev_ts + interval '-1 year -2 mons +3 days -04:05:06.5', ev_e + interval '3' month, ev_e + interval '90' day FROM ev",
	"SELECT date('2020-02-29 +08') + interval '1 year', timestamp '2020-01-31 10:00' + interval '1 month', date '2019-01-31' + interval '1 month', date '2020-03-31' - interval '1 month', date '2020-02-29' - interval '1 year' FROM ev",
	// date ± integer, differences.
	"SELECT ev_id, ev_d + ev_n, ev_d - ev_n, ev_n + ev_e FROM ev",
	"SELECT ev_id, ev_d - ev_e, ev_ts - ev_t2, ev_d - ev_ts, ev_ts - ev_d FROM ev",
	// Comparisons: dates with timestamps, with folded expressions, with text.
	"SELECT ev_id FROM ev WHERE ev_d < ev_ts",
	"SELECT ev_id FROM ev WHERE ev_e = ev_t2",
	"SELECT ev_id FROM ev WHERE ev_e < date '2020-01-31' + interval '1 month'",
	"SELECT ev_id FROM ev WHERE ev_ts >= '2020-01-01' AND ev_ts < '2020-03-01 00:00:00'",
	"SELECT ev_id FROM ev WHERE ev_d BETWEEN date '2020-01-01' AND date '2020-01-01' + interval '2 months'",
	"SELECT ev_id, ev_d FROM ev WHERE ev_d > '2020-02-28'::date - 1",
	"SELECT count(*) FROM ev WHERE ev_e < date('1996-01-01 +08') + interval '1' year",
	"SELECT ev_id FROM ev WHERE ev_ts - ev_t2 > interval '1 day'",
	"SELECT ev_id FROM ev WHERE ev_ts IS NULL OR ev_ts + interval '1 day' > ev_t2",
	// extract and date_part.
	"SELECT extract(year from ev_d), extract(month from ev_d), extract(day from ev_d), extract(quarter from ev_d), extract(dow from ev_d), extract(isodow from ev_d), extract(doy from ev_d), extract(week from ev_d), extract(isoyear from ev_d) FROM ev",
	"SELECT extract(decade from ev_e), extract(century from ev_e), extract(millennium from ev_e), extract(epoch from ev_e) FROM ev",
	"SELECT extract(hour from ev_ts), extract(minute from ev_ts), extract(second from ev_ts), extract(milliseconds from ev_ts), extract(microseconds from ev_ts), extract(epoch from ev_ts) FROM ev",
	"SELECT extract(year from ev_t2), extract(week from ev_t2), extract(dow from ev_t2), extract(doy from ev_t2) FROM ev",
	"SELECT date_part('year', ev_d), date_part('hour', ev_d), date_part('second', ev_ts), date_part('epoch', ev_ts), date_part('dow', ev_ts), date_part('month', ev_e) FROM ev",
	"SELECT extract(year from interval '1 year 14 months'), extract(month from interval '14 months'), extract(day from interval '40 days'), extract(hour from interval '-3 hours 25 minutes'), extract(minute from ev_ts - ev_t2), extract(day from ev_ts - ev_t2) FROM ev",
	"SELECT ev_id FROM ev WHERE extract(year from ev_d) = 2020",
	"SELECT CAST(EXTRACT(YEAR FROM ev_e) AS INTEGER) AS y, sum(ev_n) FROM ev GROUP BY 1 ORDER BY 1",
	"SELECT ev_id FROM ev WHERE ev_ts BETWEEN ev_e AND ev_e + interval '1 day' OR ev_d + interval '1 month' = ev_e + 29",
	"SELECT extract(year from ev_e), count(*) FROM ev GROUP BY extract(year from ev_e)",
	// date_trunc of timestamps.
	"SELECT date_trunc('month', ev_ts), date_trunc('week', ev_ts), date_trunc('quarter', ev_ts), date_trunc('year', ev_ts), date_trunc('hour', ev_ts) FROM ev",
	"SELECT date_trunc('decade', ev_t2), date_trunc('century', ev_t2), date_trunc('millennium', ev_t2), date_trunc('second', ev_ts), date_trunc('milliseconds', ev_ts), date_trunc('day', ev_ts) FROM ev",
	"SELECT date_trunc('month', ev_t2) AS m, count(*) FROM ev GROUP BY 1 ORDER BY 1",
	// Casts, ordering, grouping, set operations, aggregates.
	"SELECT cast(ev_ts as date), cast(ev_d as timestamp), cast(ev_ts as text), cast(ev_d as text), cast(ev_ts - ev_t2 as text) FROM ev",
	"SELECT ev_id, ev_ts FROM ev ORDER BY ev_ts, ev_id",
	"SELECT ev_id, ev_ts - ev_t2 FROM ev ORDER BY 2 DESC, 1",
	"SELECT max(ev_ts), min(ev_d), max(ev_ts - ev_t2), min(ev_e + interval '1 month') FROM ev",
	"SELECT DISTINCT cast(ev_t2 as date) FROM ev",
	"SELECT ev_d FROM ev UNION SELECT cast(ev_t2 as date) FROM ev",
	"SELECT ev_ts FROM ev INTERSECT SELECT ev_t2 FROM ev",
	"SELECT ev_e, count(*) FROM ev GROUP BY ev_e HAVING min(ev_t2) >= ev_e",
	// Intervals.
	"SELECT interval '1 year 2 months' * 2, interval '1 day' * ev_n, -interval '3 days 04:00:00', interval '1 month' - interval '1 day', interval '25 hours', interval '2 years ago' FROM ev",
	"SELECT interval '1 month' = interval '30 days', interval '1 day' < interval '23 hours', interval '1 day' = interval '24 hours', ev_n * interval '1 week' FROM ev",
	"SELECT cast('2020-01-01 10:00:00+08' as timestamp), '2020-02-29'::date + 365, cast('1 mon 2 days 00:00:01.25' as interval) FROM ev",
}

// datetimeCannot are the queries the executor refuses by design.
var datetimeCannot = []string{
	"SELECT date_trunc('month', ev_d) FROM ev", // a timestamp with time zone
	"SELECT ev_ts + interval '1.5 days' FROM ev",
	"SELECT interval '1 month' * 1.5 FROM ev",
	"SELECT interval '1 day' / 2 FROM ev",
}

// TestDifferentialDatetime compares the executor's date, timestamp and
// interval arithmetic with PostgreSQL's on generated instances.
// EXEC_PG_INSTANCES raises the instance count (default 5, as for
// TestDifferentialPostgres; at least 40 here).
func TestDifferentialDatetime(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	instances := max(40, pgInstances(t))
	ctx := context.Background()
	conn := pgConn(t, ctx, datetimeDDL)
	schema, err := catalog.LoadDDL(datetimeDDL, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	// Every query executes (on a database with rows), except those
	// refused by design, which must say so rather than answer.
	rng := rand.New(rand.NewSource(3))
	var db exec.Database
	for len(db["ev"]) < 3 {
		db = generateWith(rng, schema, 1, datetimePools)
	}
	checkExecutes(t, ctx, schema, db, datetimeQueries, datetimeCannot, nil)
	differentialWith(t, conn, datetimeDDL, datetimeQueries, instances, datetimePools)
}

// pgInstances reads EXEC_PG_INSTANCES (default 5).
func pgInstances(t *testing.T) int {
	n := 5
	if s := os.Getenv("EXEC_PG_INSTANCES"); s != "" {
		if _, err := fmt.Sscanf(s, "%d", &n); err != nil {
			t.Fatalf("EXEC_PG_INSTANCES: %v", err)
		}
	}
	return n
}

// TestDatetimeText runs datetimeCases on PostgreSQL: every value the
// executor computes must have PostgreSQL's exact text (scale of extract's
// numerics, interval and timestamp output included), every query error
// must be one there too, and the cases' expected values are PostgreSQL's.
func TestDatetimeText(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx := context.Background()
	conn := pgConn(t, ctx, datetimeOneDDL+" INSERT INTO one VALUES (1, NULL, NULL, NULL);")
	for _, tc := range datetimeCases {
		if tc.want == cannot_ {
			continue
		}
		rows, err := pgRows(ctx, conn, "SELECT "+tc.expr+" FROM one")
		got := queryError
		if err == nil {
			got = "NULL"
			if len(rows) != 1 || len(rows[0]) != 1 {
				t.Fatalf("%s: %d rows", tc.expr, len(rows))
			}
			if v := rows[0][0]; v != nil {
				got = *v
			}
		}
		if got == "t" || got == "f" {
			got = map[string]string{"t": "true", "f": "false"}[got]
		}
		if got != tc.want {
			t.Errorf("PostgreSQL: %s = %s, the case says %s (%v)", tc.expr, got, tc.want, err)
		}
	}
}
