package equivalence_test

import (
	"context"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestUnknownVerdict: the verdict the proxy gives without calling the
// judge (a statement too large, a proxy too busy) is the judge's own for
// a pair it did not read: unknown, scored 0.05, leaning neither way.
func TestUnknownVerdict(t *testing.T) {
	s := exampleSchema(t, catalog.Postgres)
	judged, err := equivalence.Judge(context.Background(), s, "SELECT name FROM dogs", "SELECT name FROM dogs WHERE age > 1",
		equivalence.Options{MaxQueryBytes: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []equivalence.Difference{
		judged.Differences[0],
		{Component: "busy", Candidate: "the proxy was busy; not read"},
	} {
		v := equivalence.UnknownVerdict(d)
		if v.Label != equivalence.Unknown || v.Score != 0.05 || v.Score != judged.Score || v.Likely != "" || v.Likely != judged.Likely {
			t.Errorf("%s: %s, score %v, likely %q; the judge gives %s, %v, %q", d.Component, v.Label, v.Score, v.Likely,
				judged.Label, judged.Score, judged.Likely)
		}
		if len(v.Differences) != 1 || v.Differences[0] != d {
			t.Errorf("%s: differences %+v", d.Component, v.Differences)
		}
	}
}
