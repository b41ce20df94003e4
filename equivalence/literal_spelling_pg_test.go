package equivalence_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// Regression tests for issue 33, item 4: literals that spell one value
// apart ('2020-1-1' and '2020-01-01' for a date, a uuid in either case,
// bytea in escape or hex form, '[1,2]' and '[1,3)' for an int4range,
// '10.0.0.1/32' for an inet) are one constant to PostgreSQL. Each pair's
// truth is shown on PostgreSQL over rows that hold the values before
// the judge's label is checked against it.

const spellDDL = `CREATE TABLE sp (id int PRIMARY KEY, d date, ts timestamp, tm time, u uuid, b bytea, r int4range, ip inet);`

// spellRows hold each spelled value, a neighbour of it, and NULLs.
var spellRows = []string{`INSERT INTO sp VALUES
 (1, '2020-01-01', '2020-01-01 01:00:00', '01:00:00', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\x41', '[1,3)', '10.0.0.1'),
 (2, '2020-01-02', '2020-01-01 01:00:01', '01:00:01', 'b0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\x42', '[1,4)', '10.0.0.2'),
 (3, '1970-01-01', '2020-01-02 00:00:00', '02:00:00', NULL, '\x', 'empty', '10.0.0.1/8'),
 (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`}

func spellPG(t *testing.T, ctx context.Context) (*pgx.Conn, *catalog.Schema) {
	t.Helper()
	return pgLoaded(t, ctx, spellDDL)
}

func spellLoad(t *testing.T, ctx context.Context, conn *pgx.Conn, inserts []string) {
	t.Helper()
	pgRefill(t, ctx, conn, "sp", inserts...)
}

// TestLiteralSpellingsPG: pairs PostgreSQL shows identical must not be
// not_equivalent (want marks those the judge must prove), and pairs it
// tells apart must not be proved; a counterexample must replay.
func TestLiteralSpellingsPG(t *testing.T) {
	ctx := context.Background()
	conn, s := spellPG(t, ctx)
	cases := []struct {
		ref, cand string
		same      bool // PostgreSQL's truth over spellRows
		want      equivalence.Label
	}{
		{"SELECT id FROM sp WHERE d = '2020-1-1'", "SELECT id FROM sp WHERE d = '2020-01-01'", true, equivalence.Equivalent},
		{"SELECT id FROM sp WHERE d <> '2020-1-1'", "SELECT id FROM sp WHERE d <> '2020-01-01'", true, equivalence.Equivalent},
		{"SELECT id FROM sp WHERE d = '2020-1-1' AND d = '2020-01-01'", "SELECT id FROM sp WHERE d = '2020-01-01'", true, equivalence.Equivalent},
		{"SELECT id FROM sp WHERE d = 'Jan 1, 2020'", "SELECT id FROM sp WHERE d = '20200101'", true, equivalence.Equivalent},
		{"SELECT id FROM sp WHERE d = 'epoch'", "SELECT id FROM sp WHERE d = DATE '1970-01-01'", true, equivalence.Equivalent},
		{"SELECT id FROM sp WHERE d IN ('2020-1-1', '2020-01-01')", "SELECT id FROM sp WHERE d = '2020-01-01'", true, equivalence.Equivalent},
		{"SELECT id FROM sp WHERE d < '2020-1-2'", "SELECT id FROM sp WHERE d <= '2020-01-01'", true, equivalence.Equivalent},
		{"SELECT id FROM sp WHERE ts = '2020-1-1 1:00'", "SELECT id FROM sp WHERE ts = '2020-01-01 01:00:00'", true, equivalence.Equivalent},
		{"SELECT id FROM sp WHERE tm = '1:00' AND tm = '01:00:00'", "SELECT id FROM sp WHERE tm = '01:00'", true, equivalence.Equivalent},
		{"SELECT id FROM sp WHERE u = 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'", "SELECT id FROM sp WHERE u = 'a0eebc999c0b4ef8bb6d6bb9bd380a11'", true, equivalence.Equivalent},
		{`SELECT id FROM sp WHERE b = '\x41' AND b = 'A'`, "SELECT id FROM sp WHERE b = 'A'", true, equivalence.Equivalent},
		{"SELECT id FROM sp WHERE r = '[1,3)'", "SELECT id FROM sp WHERE r = '[1,2]'", true, equivalence.Equivalent},
		{"SELECT id FROM sp WHERE ip = '10.0.0.1/32'", "SELECT id FROM sp WHERE ip = '10.0.0.1'", true, equivalence.Equivalent},
		// A spelling the planner does not read ('1/1/2020' depends on
		// DateStyle) is no contradiction: unknown, not a label.
		{"SELECT id FROM sp WHERE d = '1/1/2020' AND d = '2020-01-01'", "SELECT id FROM sp WHERE d = '2020-01-01'", true, ""},
		// Told apart: the same value is no difference (x = v AND x <> v
		// is empty), another value is.
		{"SELECT id FROM sp WHERE d = '2020-1-1' AND d <> '2020-01-01'", "SELECT id FROM sp WHERE d = '2020-1-1'", false, ""},
		{"SELECT id FROM sp WHERE ts = '2020-1-1 1:00' AND ts <> '2020-01-01 01:00:00'", "SELECT id FROM sp WHERE ts = '2020-1-1 1:00'", false, ""},
		{"SELECT id FROM sp WHERE tm = '1:00' AND tm <> '01:00:00'", "SELECT id FROM sp WHERE tm = '1:00'", false, ""},
		{"SELECT id FROM sp WHERE u = 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11' AND u <> 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", "SELECT id FROM sp WHERE u = 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'", false, ""},
		{`SELECT id FROM sp WHERE b = '\x41' AND b <> 'A'`, "SELECT id FROM sp WHERE b = 'A'", false, ""},
		{"SELECT id FROM sp WHERE r = '[1,3)' AND r <> '[1,2]'", "SELECT id FROM sp WHERE r = '[1,3)'", false, ""},
		{"SELECT id FROM sp WHERE ip = '10.0.0.1' AND ip <> '10.0.0.1/32'", "SELECT id FROM sp WHERE ip = '10.0.0.1'", false, ""},
		{"SELECT id FROM sp WHERE d = '2020-1-1'", "SELECT id FROM sp WHERE d = '2020-01-02'", false, equivalence.NotEquivalent},
		{"SELECT id FROM sp WHERE d::text = '2020-1-1'", "SELECT id FROM sp WHERE d::text = '2020-01-01'", false, equivalence.NotEquivalent},
	}
	for _, c := range cases {
		spellLoad(t, ctx, conn, spellRows)
		differ := bagsDiffer(semRows(t, ctx, conn, c.ref), semRows(t, ctx, conn, c.cand), nil)
		if differ == c.same {
			t.Fatalf("%s vs %s: PostgreSQL says same=%v, the case says %v", c.ref, c.cand, !differ, c.same)
		}
		v := semJudge(t, s, c.ref, c.cand)
		switch {
		case c.same && v.Label == equivalence.NotEquivalent:
			t.Errorf("%s vs %s: not_equivalent, but PostgreSQL returns the same rows", c.ref, c.cand)
		case !c.same && v.Label.Proved():
			t.Errorf("%s vs %s: %s (rules %v), but PostgreSQL tells them apart", c.ref, c.cand, v.Label, v.Rules)
		case c.want != "" && v.Label != c.want:
			t.Errorf("%s vs %s: %s, want %s", c.ref, c.cand, v.Label, c.want)
		}
		if v.Label == equivalence.NotEquivalent && v.Counterexample != nil {
			spellLoad(t, ctx, conn, v.Counterexample.Inserts)
			if !bagsDiffer(semRows(t, ctx, conn, c.ref), semRows(t, ctx, conn, c.cand), nil) {
				t.Errorf("%s vs %s: the counterexample %v does not replay on PostgreSQL", c.ref, c.cand, v.Counterexample.Inserts)
			}
		}
	}
}
