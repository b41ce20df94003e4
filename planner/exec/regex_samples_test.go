package exec_test

import (
	"slices"
	"testing"

	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// TestRegexSamples: the strings built for a pattern are accepted by it
// (each is checked by the executor's match, itself checked against
// PostgreSQL by TestRegexFuzzPG), cover each alternative, change case
// for ~*, and are none for a pattern that cannot run.
func TestRegexSamples(t *testing.T) {
	hash := "#"
	tests := []struct {
		op, pattern string
		esc         *string
		want        []string // each must be among the samples
		none        bool
	}{
		{plan.OpRegex, `^(news|blog)-\d+$`, nil, []string{"news-0", "blog-11"}, false},
		{plan.OpRegex, `@example\.(com|org)$`, nil, []string{"@example.com", "@example.org"}, false},
		{plan.OpIRegex, `^admin@`, nil, []string{"admin@", "ADMIN@"}, false},
		{plan.OpRegex, `^[a-z0-9._%+-]+@x\.com$`, nil, []string{"a@x.com"}, false},
		{plan.OpSimilar, `(news|blog)-[0-9]+`, nil, []string{"news-0", "blog-11"}, false},
		{plan.OpSimilar, `v_-%`, nil, []string{"va-"}, false},
		{plan.OpSimilar, `a#%`, &hash, []string{"a%"}, false},
		{plan.OpRegex, `(a)\1`, nil, nil, true},
		{plan.OpRegex, `(`, nil, nil, true},
	}
	for _, tc := range tests {
		got := exec.RegexSamples(tc.op, tc.pattern, tc.esc)
		if tc.none != (len(got) == 0) {
			t.Errorf("%s %q: samples %q", tc.op, tc.pattern, got)
		}
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s %q: samples %q, want %q among them", tc.op, tc.pattern, got, w)
			}
		}
	}
}
