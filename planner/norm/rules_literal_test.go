package norm_test

import (
	"testing"

	"github.com/pgequiv/pgequiv/planner/norm"
)

// TestRuleCanonicalLiteral: a date literal spelled apart is written as
// PostgreSQL writes the date; a spelling the planner does not read stays,
// and two equalities on it are no contradiction. The values are checked
// on PostgreSQL by TestCanonicalLiteralPG (planner/exec) and the labels
// by TestLiteralSpellingsPG (equivalence).
func TestRuleCanonicalLiteral(t *testing.T) {
	runRuleCases(t, norm.RuleCanonicalLiteral, []ruleCase{
		{name: "short-fields", sql: "SELECT name FROM dogs WHERE date_of_birth = '2020-1-1'", fire: true, has: []string{"'2020-01-01'"}, hasNot: []string{"'2020-1-1'"}},
		{name: "month-name", sql: "SELECT name FROM dogs WHERE date_of_birth < 'Jan 2, 2020'", fire: true, has: []string{"'2020-01-02'"}},
		{name: "cast", sql: "SELECT name FROM dogs WHERE date_of_birth = CAST('epoch' AS date)", fire: true, has: []string{"'1970-01-01'"}},
		{name: "canonical-stays", sql: "SELECT name FROM dogs WHERE date_of_birth = '2020-01-01'", fire: false},
		{name: "datestyle-stays", sql: "SELECT name FROM dogs WHERE date_of_birth = '1/2/2020'", fire: false, has: []string{"'1/2/2020'"}},
		{name: "text-stays", sql: "SELECT name FROM dogs WHERE name = '2020-1-1'", fire: false},
	})
	runRuleCases(t, norm.RuleContradictoryEqualities, []ruleCase{
		{name: "one-value-two-spellings", sql: "SELECT name FROM dogs WHERE date_of_birth = '2020-1-1' AND date_of_birth = '2020-01-01'", fire: false},
		{name: "unread-spelling", sql: "SELECT name FROM dogs WHERE date_of_birth = '1/1/2020' AND date_of_birth = '2020-01-01'", fire: false},
		{name: "two-values", sql: "SELECT name FROM dogs WHERE date_of_birth = '2020-1-1' AND date_of_birth = '2020-01-02'", fire: true},
	})
}
