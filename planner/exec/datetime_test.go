package exec_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// TestDatetimeArithmetic evaluates date, timestamp and interval
// expressions whose PostgreSQL results are known: month ends, leap
// years, negative intervals, days before 1970, NULLs, errors, and the
// constructs refused by design. The columns of "one" are all NULL.
func TestDatetimeArithmetic(t *testing.T) {
	ctx := context.Background()
	s, err := catalog.LoadDDL(datetimeOneDDL, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	db := exec.Database{"one": {{exec.Int(1), exec.Null, exec.Null, exec.Null}}}
	for _, tc := range datetimeCases {
		if got := evalOne(ctx, t, s, db, tc.expr); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.expr, got, tc.want)
		}
	}
}

const (
	datetimeOneDDL      = "CREATE TABLE one (id integer PRIMARY KEY, d date, ts timestamp, n integer);"
	queryError, cannot_ = "ERROR", "CANNOT"
)

// evalOne evaluates SELECT expr FROM one: the value's text, or ERROR
// (a query error) or CANNOT (not modelled).
func evalOne(ctx context.Context, t *testing.T, s *catalog.Schema, db exec.Database, expr string) string {
	t.Helper()
	p, err := planner.Plan(ctx, s, "SELECT "+expr+" FROM one", planner.Options{})
	if err != nil {
		t.Fatalf("%s: plan: %v", expr, err)
	}
	r, err := exec.Execute(ctx, p, db)
	switch {
	case errors.Is(err, exec.ErrCannotExecute):
		return cannot_
	case errors.Is(err, exec.ErrQuery):
		return queryError
	case err != nil:
		t.Fatalf("%s: %v", expr, err)
	case len(r.Rows) != 1 || len(r.Rows[0]) != 1:
		t.Fatalf("%s: result %v", expr, r.Rows)
	}
	return r.Rows[0][0].String()
}

// datetimeCases are expressions over the one-row table "one", whose
// columns are all NULL, with PostgreSQL's results (TestDatetimeText
// checks the texts against a real server).
var datetimeCases = func() []struct{ expr, want string } {
	const cannot = cannot_
	return []struct{ expr, want string }{
		// Months first, the day clamped to the month's end.
		{"date '2020-01-31' + interval '1 month'", "2020-02-29 00:00:00"},
		{"date '2019-01-31' + interval '1 month'", "2019-02-28 00:00:00"},
		{"date '2020-02-29' + interval '1 year'", "2021-02-28 00:00:00"},
		{"date '2020-02-29' - interval '1 year'", "2019-02-28 00:00:00"},
		{"date '2020-03-31' - interval '1 month'", "2020-02-29 00:00:00"},
		{"date '2020-01-31' + interval '1 month 1 day'", "2020-03-01 00:00:00"},
		{"date '2020-12-31' + interval '2 months'", "2021-02-28 00:00:00"},
		{"date '2020-01-01' - interval '13 months'", "2018-12-01 00:00:00"},
		{"timestamp '2020-01-31 10:00' + interval '-1 month'", "2019-12-31 10:00:00"},
		{"timestamp '1969-12-31 23:00' + interval '90 minutes'", "1970-01-01 00:30:00"},
		{"date '1996-01-01' + interval '1' year", "1997-01-01 00:00:00"},
		{"date('1994-09-01 +08') + interval '3' month", "1994-12-01 00:00:00"},
		{"date '2020-01-01' + interval '1 day' * 3", "2020-01-04 00:00:00"},
		// Dates and integers.
		{"date '2000-02-28' + 1", "2000-02-29"},
		{"date '1900-02-28' + 1", "1900-03-01"},
		{"1 + date '2019-12-31'", "2020-01-01"},
		{"date '2020-03-01' - date '2020-02-01'", "29"},
		{"date '1970-01-01' - 1", "1969-12-31"},
		// Differences of timestamps: justified into days and time.
		{"timestamp '2020-03-01 00:00' - timestamp '2020-02-28 12:00'", "1 day 12:00:00"},
		{"timestamp '2020-02-28 12:00' - timestamp '2020-03-01'", "-1 days -12:00:00"},
		{"date '2020-01-01' - timestamp '2020-01-01 00:00:01'", "-00:00:01"},
		{"timestamp '2020-01-01 00:00:00.5' - date '2019-12-31'", "1 day 00:00:00.5"},
		// Intervals: input, output, arithmetic, comparison.
		{"interval '1 day' - interval '2 hours'", "1 day -02:00:00"},
		{"interval '-1 day 2 hours'", "-1 days +02:00:00"},
		{"interval '1 year 2 months' * 2", "2 years 4 mons"},
		{"-interval '1 mon 2 days 00:00:01.5'", "-1 mons -2 days -00:00:01.5"},
		{"interval '14 months'", "1 year 2 mons"},
		{"interval '0 days'", "00:00:00"},
		{"interval '25 hours'", "25:00:00"},
		{"interval '3 days ago'", "-3 days"},
		{"interval '1 week 1 ms'", "7 days 00:00:00.001"},
		{"interval '1 month' = interval '30 days'", "true"},
		{"interval '1 day' > interval '23 hours 59 minutes'", "true"},
		{"interval '-1 month' < interval '-29 days'", "true"},
		{"interval '2147483647 months' + interval '1 month'", queryError},
		// Comparisons across dates and timestamps, and with text.
		{"date '2020-01-01' = timestamp '2020-01-01 00:00'", "true"},
		{"date '2020-01-01' < timestamp '2020-01-01 00:00:00.000001'", "true"},
		{"date '1997-01-01' < date '1996-01-01' + interval '1 year'", "false"},
		{"timestamp '2020-01-01 10:00' > '2020-01-01'", "true"},
		// extract and date_part.
		{"extract(year from date '2021-01-03')", "2021"},
		{"extract(isoyear from date '2021-01-03')", "2020"},
		{"extract(week from date '2021-01-03')", "53"},
		{"extract(dow from date '2021-01-03')", "0"},
		{"extract(isodow from date '2021-01-03')", "7"},
		{"extract(doy from date '2020-12-31')", "366"},
		{"extract(quarter from date '2020-04-01')", "2"},
		{"extract(century from date '2000-12-31')", "20"},
		{"extract(century from date '2001-01-01')", "21"},
		{"extract(millennium from date '2000-01-01')", "2"},
		{"extract(decade from date '2009-06-01')", "200"},
		{"extract(epoch from date '1969-12-31')", "-86400"},
		{"extract(second from timestamp '2020-01-01 10:00:05.25')", "5.250000"},
		{"extract(milliseconds from timestamp '2020-01-01 10:00:05.25')", "5250.000"},
		{"extract(epoch from timestamp '1970-01-02')", "86400.000000"},
		{"extract(hour from timestamp '1969-12-31 23:30')", "23"},
		{"extract(hour from date '2020-01-01')", queryError},
		{"date_part('hour', date '2020-01-01')", "0"},
		{"date_part('epoch', timestamp '2020-01-01 00:00:00.5')", "1577836800.5"},
		{"extract(month from interval '14 months')", "2"},
		{"extract(hour from interval '-3 hours 25 minutes')", "-2"},
		// date_trunc of timestamps.
		{"date_trunc('week', timestamp '2021-01-03 10:00')", "2020-12-28 00:00:00"},
		{"date_trunc('quarter', timestamp '2020-05-17 10:00')", "2020-04-01 00:00:00"},
		{"date_trunc('century', timestamp '2000-05-17')", "1901-01-01 00:00:00"},
		{"date_trunc('decade', timestamp '2019-05-17')", "2010-01-01 00:00:00"},
		{"date_trunc('hour', timestamp '1969-12-31 23:30')", "1969-12-31 23:00:00"},
		{"date_trunc('milliseconds', timestamp '2020-01-01 00:00:00.123456')", "2020-01-01 00:00:00.123"},
		// Casts and input.
		{"cast(timestamp '1969-12-31 23:59:59' as date)", "1969-12-31"},
		{"cast(date '2020-02-29' as timestamp)", "2020-02-29 00:00:00"},
		{"date('2020-03-01 +08')", "2020-03-01"},
		{"date('2020-03-01 23:59:59.5')", "2020-03-01"},
		{"date(timestamp '1969-12-31 12:00')", "1969-12-31"},
		{"date('March 1, 2020')", "2020-03-01"}, // as PostgreSQL reads it (literal.go)
		{"date('1/3/2020')", cannot},            // DateStyle decides
		{"cast('2020-01-01 10:00+08' as timestamp)", "2020-01-01 10:00:00"},
		{"cast('2020-02-30' as timestamp)", queryError},
		{"cast(cast('1 day 02:00' as interval) as text)", "1 day 02:00:00"},
		// NULLs.
		{"d + interval '1 day'", "NULL"},
		{"ts - timestamp '2020-01-01'", "NULL"},
		{"extract(year from d)", "NULL"},
		{"date_trunc('month', ts)", "NULL"},
		{"d + n", "NULL"},
		{"interval '1 day' * n", "NULL"},
		{"ts < date '2020-01-01'", "NULL"},
		// Refused by design.
		{"date_trunc('month', date '2020-01-15')", cannot},
		{"interval '1.5 days'", cannot},
		{"interval '1 month' * 1.5", cannot},
		{"interval '1 day' / 2", cannot},
		{"date '9999-12-01' + interval '1 month'", cannot},
		{"extract(timezone from timestamp '2020-01-01')", cannot},
	}
}()

// TestParseInterval reads interval input forms and refuses the others.
func TestParseInterval(t *testing.T) {
	tests := []struct{ in, want string }{
		{"3 month", "3 mons"},
		{"1 year 2 mons 3 days 04:05:06", "1 year 2 mons 3 days 04:05:06"},
		{"-1 days +02:00:00", "-1 days +02:00:00"},
		{"@ 2 hours 30 minutes", "02:30:00"},
		{"1 decade 1 century", "110 years"},
		{"-00:00:01.25", "-00:00:01.25"},
		{"90 day", "90 days"},
		{"1 fortnight", "CANNOT"},
		{"P1D", "CANNOT"},
		{"", "CANNOT"},
	}
	for _, tc := range tests {
		v, err := exec.ParseInterval(tc.in)
		got := v.String()
		if errors.Is(err, exec.ErrCannotExecute) {
			got = "CANNOT"
		} else if err != nil {
			got = "ERROR " + strings.Split(err.Error(), ":")[0]
		}
		if got != tc.want {
			t.Errorf("ParseInterval(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestParseTimestamp reads timestamp input forms and refuses the others.
func TestParseTimestamp(t *testing.T) {
	tests := []struct{ in, want string }{
		{"2020-01-01", "2020-01-01 00:00:00"},
		{"2020-01-01T10:00", "2020-01-01 10:00:00"},
		{"1995-03-21 +08", "1995-03-21 00:00:00"},
		{"2020-01-01 10:00:00+0830", "2020-01-01 10:00:00"},
		{"2020-01-01 10:00:00.25-02:00", "2020-01-01 10:00:00.25"},
		{"0001-01-01 00:00:00", "0001-01-01 00:00:00"},
		{"9999-12-31 23:59:59.999999", "9999-12-31 23:59:59.999999"},
		{"2020-02-30", "ERROR"},
		{"2020-01-01 23:60", "ERROR"},
		{"2020-01-01-08", "CANNOT"}, // PostgreSQL rejects it; not read
		{"2020-01-01 UTC", "CANNOT"},
		{"2020-01-01 24:00:00", "CANNOT"},
		{"2020-01-01 10:00:00.1234567", "CANNOT"},
		{"Jan 1 2020", "CANNOT"},
		{"0000-01-01", "ERROR"},
	}
	for _, tc := range tests {
		v, err := exec.ParseTimestamp(tc.in)
		got := v.String()
		if errors.Is(err, exec.ErrCannotExecute) {
			got = "CANNOT"
		} else if err != nil {
			got = "ERROR"
		}
		if got != tc.want {
			t.Errorf("ParseTimestamp(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
