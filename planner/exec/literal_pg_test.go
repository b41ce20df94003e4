package exec_test

import (
	"context"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// TestCanonicalLiteralPG (issue 33, item 4): every spelling
// CanonicalLiteral reads is one PostgreSQL reads to the value it writes
// (its output text, as format('%s', …) writes it), and every spelling it refuses either
// fails in PostgreSQL or is one it does not model. The cases are
// spellings of one value apart, and the values PostgreSQL rejects.
func TestCanonicalLiteralPG(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx := context.Background()
	conn := pgConn(t, ctx, "SET DateStyle = 'ISO, MDY'; SET TimeZone = 'UTC'")
	cases := []struct {
		sqlType string
		t       catalog.Type
		lit     string
		read    bool // CanonicalLiteral reads it
		fails   bool // PostgreSQL rejects it
	}{
		{"date", catalog.Date, "2020-01-01", true, false},
		{"date", catalog.Date, "2020-1-1", true, false},
		{"date", catalog.Date, " 2020-1-01 ", true, false},
		{"date", catalog.Date, "20200101", true, false},
		{"date", catalog.Date, "epoch", true, false},
		{"date", catalog.Date, "Jan 1, 2020", true, false},
		{"date", catalog.Date, "january 1 2020", true, false},
		{"date", catalog.Date, "1 Sept 2020", true, false},
		{"date", catalog.Date, "0099-1-1", true, false},
		{"date", catalog.Date, "2020-2-30", false, true},
		{"date", catalog.Date, "2020-13-01", false, true},
		{"date", catalog.Date, "1/2/2020", false, false}, // DateStyle decides: not read
		{"date", catalog.Date, "infinity", false, false},
		{"timestamp", catalog.Timestamp, "2020-1-1 1:00", true, false},
		{"timestamp", catalog.Timestamp, "2020-01-01T01:02:03.120", true, false},
		{"timestamp", catalog.Timestamp, "2020-1-1", true, false},
		{"timestamp", catalog.Timestamp, "2020-01-01 01:00:00.1234567", false, false}, // rounds
		{"timestamp", catalog.Timestamp, "2020-01-01 24:00", false, false},            // carries to the next day
		{"timestamp", catalog.Timestamp, "epoch", false, false},
		{"timestamp", catalog.Timestamp, "2020-1-1 25:00", false, true},
		{"time", catalog.Time, "1:2", true, false},
		{"time", catalog.Time, "1:2:3.5", true, false},
		{"time", catalog.Time, "01:02:03", true, false},
		{"time", catalog.Time, "24:00", false, false},
		{"uuid", catalog.UUID, "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", true, false},
		{"uuid", catalog.UUID, "a0eebc999c0b4ef8bb6d6bb9bd380a11", true, false},
		{"uuid", catalog.UUID, "{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}", true, false},
		{"uuid", catalog.UUID, "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11", true, false},
		{"uuid", catalog.UUID, "a0eebc9-99c0b4ef8-bb6d6bb9-bd380a11", false, true},
		{"uuid", catalog.UUID, "a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11-", false, true},
		{"bytea", catalog.Bytes, `\x41`, true, false},
		{"bytea", catalog.Bytes, `\x4A4b`, true, false},
		{"bytea", catalog.Bytes, "A", true, false},
		{"bytea", catalog.Bytes, `a\\b\101`, true, false},
		{"bytea", catalog.Bytes, "", true, false},
		{"bytea", catalog.Bytes, `\x4`, false, true},
		{"bytea", catalog.Bytes, `a\qb`, false, true},
		{"int4range", catalog.Unknown, "[1,3)", true, false},
		{"int4range", catalog.Unknown, "[1,2]", true, false},
		{"int4range", catalog.Unknown, "(0,2]", true, false},
		{"int4range", catalog.Unknown, " [ 1 , 3 ] ", true, false},
		{"int4range", catalog.Unknown, "(,5]", true, false},
		{"int4range", catalog.Unknown, "(1,1)", true, false},
		{"int4range", catalog.Unknown, "(1,2)", true, false},
		{"int4range", catalog.Unknown, "[,]", true, false},
		{"int4range", catalog.Unknown, "EMPTY", true, false},
		{"int4range", catalog.Unknown, "[3,2]", false, true},
		{"int4range", catalog.Unknown, "[2147483647,2147483647]", false, true},
		{"int8range", catalog.Unknown, "[2147483647,2147483647]", true, false},
		{"inet", catalog.Unknown, "10.0.0.1", true, false},
		{"inet", catalog.Unknown, "10.0.0.1/32", true, false},
		{"inet", catalog.Unknown, "10.0.0.0/8", true, false},
		{"inet", catalog.Unknown, "10.0.0.1/0", true, false},
		{"inet", catalog.Unknown, "10.1", false, true},
		{"inet", catalog.Unknown, "::1", false, false},
	}
	for _, c := range cases {
		got, ok := exec.CanonicalLiteral(c.t, c.sqlType, c.lit)
		if ok != c.read {
			t.Errorf("%s %q: read %v (%q), want %v", c.sqlType, c.lit, ok, got, c.read)
		}
		var pgText string
		err := conn.QueryRow(ctx, "SELECT format('%s', $1::text::"+c.sqlType+")", c.lit).Scan(&pgText)
		if (err != nil) != c.fails {
			t.Errorf("%s %q: PostgreSQL error %v, want failure %v", c.sqlType, c.lit, err, c.fails)
			continue
		}
		if ok && err == nil && got != pgText {
			t.Errorf("%s %q: canonical %q, PostgreSQL writes %q", c.sqlType, c.lit, got, pgText)
		}
		if ok && c.fails {
			t.Errorf("%s %q: read as %q, but PostgreSQL rejects it", c.sqlType, c.lit, got)
		}
	}
}
