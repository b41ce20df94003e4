package exec_test

import (
	"context"
	"errors"
	"testing"

	"github.com/pgequiv/pgequiv/planner/exec"
)

// timestamptzInputs are timestamptz literals with the instant the
// executor reads (in UTC), or CANNOT where the instant depends on the
// session's TimeZone, or on a zone name (the tz database's rules, the
// timezone_abbreviations setting) the executor does not read.
var timestamptzInputs = []struct{ in, want string }{
	{"2024-01-01 10:00:00+02", "2024-01-01 08:00:00+00"},
	{"2024-01-01T10:00:00-07:00", "2024-01-01 17:00:00+00"},
	{"2024-01-01 10:00:00.25 +0530", "2024-01-01 04:30:00.25+00"},
	{"2024-01-01T10:00:00Z", "2024-01-01 10:00:00+00"},
	{"2024-01-01T10:00:00.000Z", "2024-01-01 10:00:00+00"},
	{"2024-01-01 10:00:00z", "2024-01-01 10:00:00+00"},
	{"2024-01-01 10:00 UTC", "2024-01-01 10:00:00+00"},
	{"2024-01-01 10:00:00 utc", "2024-01-01 10:00:00+00"},
	{"2024-01-01 10:00:00 GMT", "2024-01-01 10:00:00+00"},
	{"2024-01-01 10:00:00 Zulu", "2024-01-01 10:00:00+00"},
	{"2024-01-01 10:00:00", cannot_},
	{"2024-01-01", cannot_},
	{"2024-01-01 10:00:00 Europe/Paris", notRead},
	{"2024-01-01 10:00:00 EST", notRead},
}

// notRead marks an input refused though the session's TimeZone does not
// change it.
const notRead = "CANNOT (zone name)"

// TestTimestamptzInput reads timestamptzInputs with the executor and on
// PostgreSQL under two session time zones far apart: each instant the
// executor reads is PostgreSQL's under both, and each input it refuses
// reads as two different instants there.
func TestTimestamptzInput(t *testing.T) {
	for _, tc := range timestamptzInputs {
		v, err := exec.ParseTimestamptz(tc.in)
		got := v.String()
		if errors.Is(err, exec.ErrCannotExecute) {
			got = cannot_
		} else if err != nil {
			got = queryError
		}
		if got != tc.want && !(got == cannot_ && tc.want == notRead) {
			t.Errorf("ParseTimestamptz(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx := context.Background()
	conn := pgConn(t, ctx, "")
	for _, tc := range timestamptzInputs {
		var seen []string
		for _, zone := range []string{"Pacific/Chatham", "America/Anchorage"} {
			var s string
			q := "SELECT to_char($1::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US')"
			if _, err := conn.Exec(ctx, "SET TimeZone = '"+zone+"'"); err != nil {
				t.Fatal(err)
			}
			if err := conn.QueryRow(ctx, q, tc.in).Scan(&s); err != nil {
				t.Fatalf("%s: %v", tc.in, err)
			}
			seen = append(seen, s)
		}
		switch tc.want {
		case notRead:
			continue
		case cannot_:
			if seen[0] == seen[1] {
				t.Errorf("%q reads as %s under both zones: the executor could read it", tc.in, seen[0])
			}
			continue
		}
		want, err := exec.ParseTimestamp(seen[0])
		if err != nil {
			t.Fatal(err)
		}
		if seen[0] != seen[1] || want.String()+"+00" != tc.want {
			t.Errorf("PostgreSQL reads %q as %v (UTC), the case says %s", tc.in, seen, tc.want)
		}
	}
}
