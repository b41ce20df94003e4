package refute

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// Inserts writes db as the INSERT statements a counterexample carries
// (referenced tables first, one statement per non-empty table) in dialect
// d. The soundness campaign (eval/campaign) loads the databases the
// generator makes into the real engine this way, so that it tests the
// same SQL a counterexample would hold.
func Inserts(s *catalog.Schema, db exec.Database, d catalog.Dialect) []string {
	return inserts(s, db, d)
}
