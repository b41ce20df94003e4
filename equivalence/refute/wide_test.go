package refute

import (
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// TestWideDrawsFromTables checks that wide's tables give the values the
// draws spell out: building each value from its draws, as wide once did,
// gives the same value from the same random stream.
func TestWideDrawsFromTables(t *testing.T) {
	built := func(rng *rand.Rand, typ catalog.Type) exec.Value {
		switch typ {
		case catalog.Numeric:
			ip := rng.Int64N(401) - 100
			d := int64(rng.IntN(10))
			if ip < 0 {
				d = -d
			}
			return exec.NumericRat(big.NewRat(ip*10+d, 10), 1)
		case catalog.Text:
			n := rng.IntN(4)
			var b strings.Builder
			for range n {
				b.WriteByte(wideLetters[rng.IntN(len(wideLetters))])
			}
			return exec.Text(b.String())
		}
		return wide(rng, typ)
	}
	for _, typ := range []catalog.Type{catalog.Numeric, catalog.Text} {
		a, b := rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(1, 2))
		for i := range 20000 {
			got, want := wide(a, typ), built(b, typ)
			if got.K != want.K || got.String() != want.String() || got.Scale != want.Scale {
				t.Fatalf("%v draw %d: got %v, want %v", typ, i, got, want)
			}
		}
	}
}
