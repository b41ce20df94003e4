package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// TestMutants checks each operator's mutant of a query that offers it,
// and that an operator with no site in the query makes none.
func TestMutants(t *testing.T) {
	const q = "SELECT a, b, count(DISTINCT x), sum(y) FROM t JOIN u ON t.k = u.k WHERE t.q NOT IN (SELECT q FROM v) AND t.s LIKE 'p%' AND t.n > 3 GROUP BY a, b ORDER BY 1 DESC LIMIT 5"
	tests := []struct {
		op, want string // want "" : no mutant
	}{
		{"cmp_flip", "ON t.k <> u.k"},
		{"like_not", "t.s NOT LIKE 'p%'"},
		{"in_not", "WHERE t.q IN (SELECT q FROM v)"},
		{"drop_join_pred", "ON true"},
		{"inner_left", "LEFT JOIN u"},
		{"drop_distinct", ""},
		{"count_distinct", "count(x)"},
		{"sum_max", "max(y)"},
		{"const_change", "LIMIT 6"},
		{"and_or", "OR t.s LIKE"},
		{"drop_group_key", "GROUP BY b ORDER"},
		{"order_dir", "ORDER BY 1 ASC LIMIT 5"},
		{"union_all", ""},
	}
	ref, ms, err := Mutants(q, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.op, func(t *testing.T) {
			var got []string
			for _, m := range ms {
				if m.Op == tt.op {
					got = append(got, m.SQL)
				}
			}
			if tt.want == "" {
				if len(got) != 0 {
					t.Fatalf("no site expected, got %q", got)
				}
				return
			}
			if !slices.ContainsFunc(got, func(m string) bool { return strings.Contains(m, tt.want) && m != ref }) {
				t.Fatalf("want a mutant containing %q, got %q", tt.want, got)
			}
		})
	}
	// An ordinal is no constant to change: ORDER BY 1 stays.
	for _, m := range ms {
		if m.Op == "const_change" && !strings.Contains(m.SQL, "ORDER BY 1 DESC") {
			t.Errorf("const_change changed the ordinal: %s", m.SQL)
		}
	}
	// The choice of sites is deterministic in the seed.
	_, again, _ := Mutants(q, 10, 1)
	if len(again) != len(ms) {
		t.Fatalf("%d mutants, then %d", len(ms), len(again))
	}
	for i := range ms {
		if ms[i] != again[i] {
			t.Fatalf("mutant %d: %q, then %q", i, ms[i].SQL, again[i].SQL)
		}
	}
}

// TestSuiteEngines runs the suite's whole machinery on a handful of
// mutants of two queries, on SQLite and on PostgreSQL: every refuted
// mutant's counterexample replays on the engine, no mutant the engine
// shows different is proved, and most mutants are refuted.
func TestSuiteEngines(t *testing.T) {
	tests := []struct {
		file string
		pg   bool
	}{
		{"testdata/mini_sqlite.jsonl", false},
		{"testdata/mini_pg.jsonl", true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			cfg := config{PerOp: 1, EngineDBs: 8, Seed: 1}
			if tt.pg {
				c := pgtest.New(t, pgtest.Options{})
				cfg.PGConn = c.ConnString(pgtest.SuperUser, "")
			}
			var recs []record
			if err := runCorpus(context.Background(), cfg, tt.file, func(r record) { recs = append(recs, r) }); err != nil {
				t.Fatal(err)
			}
			var tl tally
			for _, r := range recs {
				tl.add(r)
				if r.Label == "not_equivalent" && !r.Replayed {
					t.Errorf("%s: counterexample did not replay: %s", r.Op, r.Mutant)
				}
				if strings.HasPrefix(r.Label, "equivalent") && r.Distinct {
					t.Errorf("%s: proved, but the engine shows it different: %s", r.Op, r.Mutant)
				}
			}
			t.Logf("%s", tl)
			for _, r := range recs {
				t.Logf("%s %s distinct=%v: %s", r.Op, r.Label, r.Distinct, r.Mutant)
			}
			// 11 mutants, of which two are truly equivalent (a LEFT JOIN
			// whose WHERE rejects the NULL-extended rows, DISTINCT under
			// UNION): the rest must all be shown different and refuted.
			if tl.mutants != 11 || tl.distinct < 9 || tl.distinctRefuted != tl.distinct || tl.proved > 2 {
				t.Fatalf("too few mutants refuted: %s", tl)
			}
		})
	}
}

// TestDiffer checks the engine results' comparison: bags by default,
// lists when ordered, and an error tells nothing.
func TestDiffer(t *testing.T) {
	a := rows{data: [][]string{{"1"}, {"2"}}}
	b := rows{data: [][]string{{"2"}, {"1"}}}
	c := rows{data: [][]string{{"1"}, {"1"}}}
	tests := []struct {
		name    string
		x, y    rows
		ordered bool
		want    bool
	}{
		{"same bag", a, b, false, false},
		{"other order", a, b, true, true},
		{"duplicates", a, c, false, true},
		{"fewer rows", a, rows{data: a.data[:1]}, false, true},
		{"error", a, rows{err: context.Canceled}, false, false},
	}
	for _, tt := range tests {
		if got := differ(tt.x, tt.y, tt.ordered); got != tt.want {
			t.Errorf("%s: differ = %v, want %v", tt.name, got, tt.want)
		}
	}
}
