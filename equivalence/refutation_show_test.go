package equivalence

import "testing"

// TestResultSampleShowsEmptyStrings: a row holding an empty string (or
// blanks) prints visibly, not as ().
func TestResultSampleShowsEmptyStrings(t *testing.T) {
	for _, tc := range []struct {
		rows [][]string
		want string
	}{
		{[][]string{{""}}, "1 row ('')"},
		{[][]string{{"", "NULL"}}, "1 row ('', NULL)"},
		{[][]string{{" "}, {"a"}}, "2 rows (' ') (a)"},
		{[][]string{{"it's "}}, "1 row ('it''s ')"},
		{[][]string{{"7"}}, "1 row (7)"},
	} {
		r := ResultSample{Count: len(tc.rows), Rows: tc.rows}
		if got := r.summary(nil); got != tc.want {
			t.Errorf("%q: %s, want %s", tc.rows, got, tc.want)
		}
	}
}
