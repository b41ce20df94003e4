package equivalence_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestSQLiteRealTextAcrossVersions: SQLite writes a REAL as text with 15
// significant digits up to 3.42 ('0.3' for 0.1 + 0.2) and with as many as
// the value needs from 3.43 on ('0.30000000000000004'), and reads a
// numeric literal as a number before TEXT affinity writes it back (1.50
// is '1.5'). The judge turned the literal of CAST(ratio AS TEXT) >=
// 0.30000000000000004 into the text '0.30000000000000004' while its
// executor wrote the column's 0.30000000000000004 as '0.3', and showed a
// counterexample neither version reproduces (the soundness campaign
// found it). round() differs too: 3.40 rounds a REAL's 15-digit text,
// 3.43 on its binary value. Every label here is checked on SQLite 3.54 (the Go driver)
// and 3.40 (the sqlite3 shell): a proof on rows that hold both kinds of
// value, a counterexample on both engines.
func TestSQLiteRealTextAcrossVersions(t *testing.T) {
	const ddl = `CREATE TABLE reading (id INTEGER PRIMARY KEY, ratio REAL);`
	data := []string{
		`INSERT INTO reading VALUES (1, 0.30000000000000004), (2, 0.3), (3, 1.5), (4, 1), (5, NULL), (6, 2.675);`,
		`INSERT INTO reading VALUES (1, 0.1), (2, 2.5), (3, 100), (4, 1e16), (5, 20);`,
	}
	s, err := catalog.LoadDDL(ddl, catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct {
		ref, cand string
		refuted   bool // the judge must find a counterexample
	}{
		{"SELECT id FROM reading WHERE ratio >= 0.30000000000000004", "SELECT id FROM reading WHERE CAST(ratio AS TEXT) >= 0.30000000000000004", false},
		{"SELECT id FROM reading WHERE CAST(ratio AS TEXT) = 1.50", "SELECT id FROM reading WHERE CAST(ratio AS TEXT) = '1.50'", true},
		{"SELECT id FROM reading WHERE CAST(ratio AS TEXT) = 1.50", "SELECT id FROM reading WHERE ratio = 1.5", false},
		{"SELECT id FROM reading WHERE ratio || '' = '0.3'", "SELECT id FROM reading WHERE ratio = 0.3", false},
		{"SELECT id, ratio || '' FROM reading", "SELECT id, CAST(ratio AS TEXT) FROM reading", false},
		{"SELECT id FROM reading WHERE CAST(ratio AS TEXT) LIKE '0.3%'", "SELECT id FROM reading WHERE ratio BETWEEN 0.3 AND 0.4", true},
		// 1e16 is '1.0e+16' in SQLite 3.40 and '10000000000000000.0'
		// in 3.54 (the campaign, seed 1131).
		{"SELECT id FROM reading WHERE ratio >= 1e16", "SELECT id FROM reading WHERE CAST(ratio AS TEXT) >= 1e16", false},
		// round(2.675, 2) is 2.68 in SQLite 3.40, which rounds the
		// 15-digit text, and 2.67 in 3.54, which rounds the binary
		// value (2.67499999...).
		{"SELECT id FROM reading WHERE round(ratio, 2) = 2.68", "SELECT id FROM reading WHERE round(ratio, 2) = 2.68 AND ratio <> 2.675", false},
		{"SELECT id FROM reading WHERE round(ratio) = 2", "SELECT id FROM reading WHERE ratio = 2", true},
		{"SELECT id, ratio * 1e15 || '' FROM reading", "SELECT id, CAST(ratio * 1e15 AS TEXT) FROM reading", false},
		{"SELECT id FROM reading WHERE CAST(ratio * 1e15 AS TEXT) LIKE '1.0e%'", "SELECT id FROM reading WHERE ratio * 1e15 >= 1e15 AND ratio * 1e15 < 2e15", false},
	} {
		v, err := equivalence.Judge(ctx, s, c.ref, c.cand, equivalence.Options{Refute: equivalence.RefuteOptions{Budget: 2 * time.Second}})
		if err != nil {
			t.Fatal(err)
		}
		switch v.Label {
		case equivalence.Equivalent, equivalence.EquivalentUnderAssumptions:
			for _, d := range data {
				if liteDiffer(t, ddl, d, c.ref, c.cand) || shellBag(t, ddl+d, c.ref) != shellBag(t, ddl+d, c.cand) {
					t.Errorf("%s / %s: proved, but SQLite tells them apart on %s", c.ref, c.cand, d)
				}
			}
		case equivalence.NotEquivalent:
			ins := strings.Join(v.Counterexample.Inserts, "\n")
			if !liteDiffer(t, ddl, ins, c.ref, c.cand) || shellBag(t, ddl+ins, c.ref) == shellBag(t, ddl+ins, c.cand) {
				t.Errorf("%s / %s: counterexample %q does not tell them apart on both SQLite 3.54 and 3.40", c.ref, c.cand, ins)
			}
		}
		if c.refuted && v.Label != equivalence.NotEquivalent {
			t.Errorf("%s / %s: %s, want a counterexample", c.ref, c.cand, v.Summary())
		}
		t.Logf("%s / %s: %s", c.ref, c.cand, v.Label)
	}
}
