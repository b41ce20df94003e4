package prove_test

import "testing"

// TestEmptyMemo: empty remembers the nodes it did not prove empty, and
// the same nodes are asked again (the outputs-of-any-type check, each
// UNION ALL's branches, each block's leaves). The remembered "no" must
// not stand in for a "yes" elsewhere: a branch empty in one UNION ALL
// and its non-empty twin in another are told apart, an empty branch
// asked twice still drops with its rule, and a non-empty branch is never
// dropped (each "false" row differs on some database).
func TestEmptyMemo(t *testing.T) {
	cases := []ruleCase{
		{name: "empty branch dropped",
			a:    "SELECT id FROM o WHERE w > 1 AND w < 0 UNION ALL SELECT id FROM o",
			b:    "SELECT id FROM o",
			want: true, rule: "empty-contradiction"},
		{name: "empty branch in two unions, asked twice",
			a: "SELECT id FROM (SELECT id FROM o WHERE w > 1 AND w < 0 UNION ALL SELECT id FROM o) x " +
				"UNION ALL SELECT id FROM (SELECT id FROM o WHERE w > 1 AND w < 0 UNION ALL SELECT oid FROM l) y",
			b:    "SELECT id FROM o UNION ALL SELECT oid FROM l",
			want: true, rule: "empty-contradiction"},
		{name: "non-empty twin of an empty branch",
			a:    "SELECT id FROM o WHERE w > 1 AND w < 3 UNION ALL SELECT id FROM o",
			b:    "SELECT id FROM o",
			want: false},
		{name: "non-empty branch beside an empty one",
			a: "SELECT id FROM o WHERE w > 1 AND w < 0 UNION ALL SELECT id FROM o WHERE w > 1 AND w < 3 " +
				"UNION ALL SELECT id FROM o",
			b:    "SELECT id FROM o",
			want: false},
		{name: "both sides empty, output types apart",
			a:    "SELECT id, NULL FROM o WHERE w > 1 AND w < 0",
			b:    "SELECT id, v FROM o WHERE w > 5 AND w < 2",
			want: true, rule: "empty-any-types"},
		{name: "one side empty only",
			a:    "SELECT id, NULL FROM o WHERE w > 1 AND w < 0",
			b:    "SELECT id, v FROM o WHERE w > 1 AND w < 3",
			want: false},
	}
	runRuleCases(t, unnestDDL, cases)
}
