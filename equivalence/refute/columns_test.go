package refute

import (
	"context"
	"testing"
)

// TestEquivalentUpToColumnOrder checks that the caller's proof of
// equivalence up to column order only shortens the search: the
// counterexample is the one the full search reports, the proof is asked
// once, and only when the results differ in column order alone.
func TestEquivalentUpToColumnOrder(t *testing.T) {
	s := exampleSchema(t)
	cases := []struct {
		ref, cand string
		asked     bool // the results differ in column order first
	}{
		{"SELECT name, age FROM dogs", "SELECT age, name FROM dogs", true},
		{"SELECT d.name, o.city FROM dogs d JOIN owners o ON d.owner_id = o.owner_id",
			"SELECT o.city, d.name FROM owners o JOIN dogs d ON o.owner_id = d.owner_id", true},
		{"SELECT name FROM dogs WHERE age > 3", "SELECT name FROM dogs WHERE age >= 3", false},
	}
	for _, c := range cases {
		ref, cand := mustPlan(t, s, c.ref), mustPlan(t, s, c.cand)
		full, err := Refute(context.Background(), s, ref, cand, testOpts())
		if err != nil {
			t.Fatal(err)
		}
		for _, proved := range []bool{true, false} {
			opts := testOpts()
			asked := 0
			opts.EquivalentUpToColumnOrder = func() bool { asked++; return proved }
			got, err := Refute(context.Background(), s, ref, cand, opts)
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]int{true: 1, false: 0}[c.asked]; asked != want {
				t.Errorf("%s / %s (proof %v): asked %d times, want %d", c.ref, c.cand, proved, asked, want)
			}
			if !full.Found || !got.Found || describe(got) != describe(full) || got.Counterexample.ColumnOrderOnly != full.Counterexample.ColumnOrderOnly {
				t.Errorf("%s / %s (proof %v):\n got %s\nwant %s", c.ref, c.cand, proved, describe(got), describe(full))
			}
			if proved && c.asked && got.Instances >= full.Instances {
				t.Errorf("%s / %s: the proof did not shorten the search (%d databases, %d without)", c.ref, c.cand, got.Instances, full.Instances)
			}
		}
	}
}
