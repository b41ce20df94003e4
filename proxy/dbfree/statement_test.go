package dbfree

import (
	"bytes"
	"math"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgequiv/pgequiv/internal/pgtypes"
)

func TestAnalyze(t *testing.T) {
	for _, tc := range []struct {
		sql       string
		kind      stmtKind
		ref, cand arg
		nParams   int
		errCode   string
	}{
		{sql: "SELECT * FROM pgequiv.check('a', 'b')", kind: kindCheck, ref: arg{literal: "a"}, cand: arg{literal: "b"}},
		{sql: "select label from PGEQUIV.CHECK($2, $1::text) ;", kind: kindCheck, ref: arg{param: 2}, cand: arg{param: 1}, nParams: 2},
		{sql: "SELECT * FROM pgequiv.check('it''s', $$x$$)", kind: kindCheck, ref: arg{literal: "it's"}, cand: arg{literal: "x"}},
		{sql: "SELECT * FROM pgequiv.check('a', 'b') WHERE label = 'x'", kind: kindOther},
		{sql: "SELECT * FROM other.check('a', 'b')", kind: kindOther},
		{sql: "SELECT * FROM pgequiv.check('a', 1)", errCode: codeInvalidParameter},
		{sql: "SELECT * FROM pgequiv.check('a', 'b', 'c')", errCode: codeUndefinedFunction},
		{sql: "SELECT label || 'x' FROM pgequiv.check('a', 'b')", errCode: codeFeatureNotSupported},
		{sql: "  -- nothing\n", kind: kindEmpty},
		{sql: "SET pgequiv.reference = 'SELECT 1'", kind: kindSession},
		{sql: "SELECT $1 FROM dogs WHERE a = '$2'", kind: kindOther, nParams: 1},
	} {
		st, err := analyze(tc.sql)
		if tc.errCode != "" {
			if err == nil || err.code != tc.errCode {
				t.Errorf("%q: error %v, want %s", tc.sql, err, tc.errCode)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.sql, err)
			continue
		}
		if st.kind != tc.kind || st.ref != tc.ref || st.cand != tc.cand || st.nParams != tc.nParams {
			t.Errorf("%q: kind %d ref %+v cand %+v params %d", tc.sql, st.kind, st.ref, st.cand, st.nParams)
		}
	}
}

func TestSplitStatements(t *testing.T) {
	got := splitStatements("SELECT 1; SELECT ';' /* c */ ;SELECT 3 /*pgequiv_ref='x'*/")
	want := []string{"SELECT 1", " SELECT ';' /* c */ ", "SELECT 3 /*pgequiv_ref='x'*/"}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("statement %d: %q, want %q", i, got[i], want[i])
		}
	}
}

// FuzzAnalyze: analysis never panics and a check call's columns and
// parameters are in range.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{
		"SELECT * FROM pgequiv.check('a', 'b')", "SELECT score FROM pgequiv.check($1, $2)",
		"SELECT 1 /*pgequiv_ref='SELECT%201'*/", "SET pgequiv.reference = 'x'; SELECT 1", "", "$", "$99999999999",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		for _, part := range splitStatements(sql) {
			st, err := analyze(part)
			if err != nil {
				continue
			}
			for _, c := range st.cols {
				if c < 0 || c >= len(columns) {
					t.Fatalf("column %d", c)
				}
			}
			if st.ref.param < 0 || st.cand.param < 0 {
				t.Fatalf("negative parameter")
			}
		}
	})
}

// TestScoreEncoding: the score column is numeric with three decimals, in
// text and in binary (which pgx decodes back to the same value).
func TestScoreEncoding(t *testing.T) {
	m := pgtype.NewMap()
	for _, tc := range []struct {
		score float64
		text  string
	}{
		{0.9933805563228967, "0.993"}, {0.99, "0.990"}, {1, "1.000"}, {0, "0.000"}, {0.0015022367707395506, "0.002"},
		{0.0004, "0.000"}, {12345.6789, "12345.679"}, {-0.25, "-0.250"}, {math.NaN(), "NaN"},
	} {
		if got := string(scoreText(tc.score)); got != tc.text {
			t.Errorf("text %v: %q, want %q", tc.score, got, tc.text)
		}
		var n pgtype.Numeric
		if err := m.Scan(pgtypes.Numeric, pgtype.BinaryFormatCode, scoreBinary(tc.score), &n); err != nil {
			t.Fatalf("binary %v: %v", tc.score, err)
		}
		if math.IsNaN(tc.score) {
			if !n.NaN {
				t.Errorf("binary NaN: %+v", n)
			}
			continue
		}
		f, err := n.Float64Value()
		want, _ := strconv.ParseFloat(tc.text, 64)
		if err != nil || f.Float64 != want {
			t.Errorf("binary %v decodes to %v (%v), want %s", tc.score, f.Float64, err, tc.text)
		}
	}
	// As PostgreSQL sends 0.990::numeric: 1 digit, weight -1, positive,
	// 3 decimals, 9900.
	if got, want := scoreBinary(0.99), []byte{0, 1, 0xff, 0xff, 0, 0, 0, 3, 0x26, 0xac}; !bytes.Equal(got, want) {
		t.Errorf("0.99: % x, want % x", got, want)
	}
}
