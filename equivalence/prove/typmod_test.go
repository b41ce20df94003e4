package prove_test

import "testing"

// TestNumericCasts: a cast to numeric(p,s) is its argument only when the
// argument's declared type fits in it; a narrower one rounds, so the
// two "false" rows differ on a row with q = 2.4. The last row is equal
// but not proved: a computed argument has no declared scale.
func TestNumericCasts(t *testing.T) {
	runRuleCases(t, "CREATE TABLE l (lid integer PRIMARY KEY, q numeric(10,2), k integer);", []ruleCase{
		{name: "a wider numeric",
			a:    "SELECT lid FROM l WHERE CAST(q AS numeric(20,4)) > 2",
			b:    "SELECT lid FROM l WHERE q > 2",
			want: true},
		{name: "numeric without a typmod",
			a:    "SELECT lid FROM l WHERE CAST(q AS numeric) > 2",
			b:    "SELECT lid FROM l WHERE q > 2",
			want: true},
		{name: "an integer into a numeric that holds it",
			a:    "SELECT lid FROM l WHERE CAST(k AS numeric(27,3)) > 2",
			b:    "SELECT lid FROM l WHERE k > 2",
			want: true},
		{name: "a narrower scale rounds in a filter",
			a: "SELECT lid FROM l WHERE CAST(q AS numeric(10,0)) = 2",
			b: "SELECT lid FROM l WHERE q = 2"},
		{name: "a narrower scale rounds an output",
			a: "SELECT CAST(q AS numeric(10,0)) FROM l",
			b: "SELECT q FROM l"},
		{name: "a computed argument",
			a:        "SELECT lid FROM l WHERE CAST(q * 2 AS numeric(20,4)) > 2",
			b:        "SELECT lid FROM l WHERE q * 2 > 2",
			unproved: "a computed argument has no declared scale"},
	})
}
