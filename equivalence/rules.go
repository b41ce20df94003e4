package equivalence

import "github.com/pgequiv/pgequiv/equivalence/rewrite"

// ESM+ rule names, as Verdict.Rules lists them (ESM+ numbering in
// parentheses). The rules themselves are in package rewrite.
const (
	RuleMaxSubqueryToLimit = rewrite.RuleMaxSubqueryToLimit // (1)
	RuleIntersectToAnd     = rewrite.RuleIntersectToAnd     // (3)
	RuleUnionToOr          = rewrite.RuleUnionToOr          // (4)
	RuleExceptToAntiJoin   = rewrite.RuleExceptToAntiJoin   // (6)
	RuleCountStarNotNull   = rewrite.RuleCountStarNotNull   // (7)
	RuleIsNotNullDropped   = rewrite.RuleIsNotNullDropped   // (8)
	RuleOrderLimitToMax    = rewrite.RuleOrderLimitToMax    // (9)
	RuleSemiJoinOnKey      = rewrite.RuleSemiJoinOnKey      // (12, 17)
	RuleFKJoinElimination  = rewrite.RuleFKJoinElimination  // (13)
	RuleSelfJoinOnKey      = rewrite.RuleSelfJoinOnKey      // (17)
	RuleSelfUnion          = rewrite.RuleSelfUnion          // (18)
	RuleNullIgnoringAgg    = rewrite.RuleNullIgnoringAgg
	RuleNullsOrderNotNull  = rewrite.RuleNullsOrderNotNull
	RuleDistinctJoinToSemi = rewrite.RuleDistinctJoinToSemi
	RuleAggDistinctOnKey   = rewrite.RuleAggDistinctOnKey
)
