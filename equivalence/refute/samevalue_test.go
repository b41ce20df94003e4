package refute

import (
	"testing"

	"github.com/pgequiv/pgequiv/planner/exec"
)

// TestSameValueMatchesCompare checks sameValue's fast paths against
// exec.Compare, the equality they stand in for.
func TestSameValueMatchesCompare(t *testing.T) {
	var vals []exec.Value
	for _, s := range []string{"0", "0.0", "-0.00", "1", "1.0", "1.50", "1.5", "-1.5", "2", "10", "0.1", "0.10", "-1", "3.333", "123456789012345678901234567890"} {
		vals = append(vals, num(s))
	}
	vals = append(vals, wideNumerics()[0], wideNumerics()[1005], wideNumerics()[4009], exec.Int(1), exec.Int(0), exec.Float(1.5), exec.Float(0))
	for _, a := range vals {
		for _, b := range vals {
			c, err := exec.Compare(a, b)
			if want := err == nil && c == 0; sameValue(a, b) != want {
				t.Errorf("sameValue(%v, %v) = %v, want %v", a, b, !want, want)
			}
		}
	}
}
