package prove

import (
	"testing"
	"time"
)

// TestParseTZLiteral: the timestamptz literals timestamptz-bound reads,
// and those it leaves alone because PostgreSQL reads them otherwise
// (normalizing, rounding, or through the session time zone).
func TestParseTZLiteral(t *testing.T) {
	utc := func(s string) time.Time {
		v, err := time.Parse("2006-01-02 15:04:05.999999", s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		in   string
		ok   bool
		want time.Time
	}{
		{"2024-12-31T23:59:59.999999+00:00", true, utc("2024-12-31 23:59:59.999999")},
		{"2024-03-01 04:59:59.5-05", true, utc("2024-03-01 09:59:59.5")},
		{"2024-06-01 02:00:00+0200", true, utc("2024-06-01 00:00:00")},
		{"2024-01-01 00:00:00+05:30", true, utc("2023-12-31 18:30:00")},
		{"2024-02-29 12:00:00+00", true, utc("2024-02-29 12:00:00")},
		{"2023-02-29 12:00:00+00", false, time.Time{}},         // no such day
		{"2024-01-01 24:00:00+00", false, time.Time{}},         // PostgreSQL reads it as the next day
		{"2024-01-01 23:59:60+00", false, time.Time{}},         // a leap second, read as the next minute
		{"2024-01-01 00:00:00.1234567+00", false, time.Time{}}, // rounded by PostgreSQL
		{"2024-01-01 00:00:00", false, time.Time{}},            // the session's time zone
		{"2024-01-01 00:00:00Z", false, time.Time{}},
		{"infinity", false, time.Time{}},
		{"2024-13-01 00:00:00+00", false, time.Time{}},
	} {
		got, ok := parseTZLiteral(tc.in)
		if ok != tc.ok || (ok && !got.Equal(tc.want)) {
			t.Errorf("%s: %v %v, want %v %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
