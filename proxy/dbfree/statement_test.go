package dbfree

import "testing"

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
