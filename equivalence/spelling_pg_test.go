package equivalence_test

import (
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestSpellingChoiceSelfJoinPostgres: the PostgreSQL soundness campaign
// (seed 1130, the shop schema's ICU collation that ignores case) found
// the first two pairs proved equivalent outright while PostgreSQL
// returned 'A' for one and 'a' for the other on one database: a
// self-join read the other way round, or grouped by the other
// occurrence's column, merges the same rows met in another order. Which
// spelling comes out depends on the plan PostgreSQL picks for the state
// it holds (a fresh table of the same rows returns 'A' for both), so the
// engine check is the campaign's; here the verdicts are asserted: a
// proof names same_spelling, and the same merge over the same join
// (its condition written the other way) stays proved outright.
func TestSpellingChoiceSelfJoinPostgres(t *testing.T) {
	s := handSchema(t, `CREATE TABLE customer (id int PRIMARY KEY, name text);`, catalog.Postgres,
		map[string]string{"customer.name": "ci"}, map[string]bool{"customer.name": true})
	for _, c := range []struct {
		ref, cand string
		assumed   bool
	}{
		{"SELECT DISTINCT a.name FROM customer AS a JOIN customer AS b ON a.name = b.name", "SELECT DISTINCT a.name FROM customer AS b JOIN customer AS a ON a.name = b.name", true},
		{"SELECT a.name FROM customer AS a JOIN customer AS b ON a.name = b.name GROUP BY a.name", "SELECT b.name FROM customer AS a JOIN customer AS b ON a.name = b.name GROUP BY b.name", true},
		{"SELECT DISTINCT a.name FROM customer AS a JOIN customer AS b ON a.name = b.name", "SELECT DISTINCT x.name FROM customer AS x JOIN customer AS y ON x.name = y.name", false},
	} {
		checkSpellingVerdict(t, judgeIdentity(t, s, c.ref, c.cand), c.ref, c.cand, c.assumed)
	}
}
