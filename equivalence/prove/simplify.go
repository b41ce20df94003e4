package prove

import (
	"strconv"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "simplify": rewrites of one node into an equivalent, simpler
// one, applied to both plans as the comparison reaches each node. They
// build new nodes and never change the plans.
//
//   - limit over at most one row: LIMIT n (n ≥ 1, no OFFSET) keeps it.
//   - grouping on a key: every group is one row, so the aggregate is a
//     projection (MIN, MAX, ANY_VALUE of x are x; COUNT(*) and COUNT(1)
//     are 1, COUNT([DISTINCT] x) is 0 where x is NULL, else 1).
//   - constant grouping keys: they split no group, so they drop out of
//     GROUP BY while another key remains (an aggregate with no GROUP BY
//     would make a row from an empty input).
//   - duplicate-insensitive aggregates (DISTINCT, MIN, MAX, ...) over a
//     DISTINCT or a GROUP BY without aggregates: the deduplication
//     changes no group and no value.
//   - left join along a foreign key: when the condition equates NOT NULL
//     foreign key columns with the key they reference, every left row
//     has exactly one partner, so the left join is an inner join (an
//     assumption on SQLite, which does not enforce foreign keys).
//   - COUNT over nothing: an aggregate with no GROUP BY whose calls are
//     all COUNTs of a NULL constant or under a never-true FILTER is one
//     row of zeros.
func (p *prover) simplify(n *plan.Node, m *plan.Metadata) *plan.Node {
	if (n.Op == plan.OpProject || n.Op == plan.OpFilter) && len(n.Inputs) == 1 {
		// A projection or filter over a UNION ALL moves into it, also
		// when the UNION ALL appears once the input is simplified.
		if in := p.simplify(n.Inputs[0], m); in != n.Inputs[0] && in.Op == plan.OpSetOp {
			c := *n
			c.Inputs = []*plan.Node{in}
			n = &c
		}
	}
	for i := 0; i < 8; i++ {
		if j := p.firstStep(simplifyFirst, n, m); j != nil {
			n = j
			continue
		}
		next, rule := simplifyOnce(n, m)
		if next == nil {
			if j := p.firstStep(simplifyLast, n, m); j != nil {
				n = j
				continue
			}
			return n
		}
		p.rule(rule)
		n = next
	}
	return n
}

// A simplifyStep is one rewrite simplify tries: apply returns the
// rewritten node or nil, and rule, when set, is recorded when it fires
// (the steps without one record their own rule, often with a subject).
type simplifyStep struct {
	apply func(p *prover, n *plan.Node, m *plan.Metadata) *plan.Node
	rule  *Rule
}

// The steps in the order simplify tries them: simplifyFirst before the
// rewrites of simplifyOnce, simplifyLast once none of those applies.
// They are set in init because the steps reach simplify again, which
// reads them (an initializer would be a cycle).
var simplifyFirst, simplifyLast []simplifyStep

func init() {
	simplifyFirst = []simplifyStep{
		{apply: (*prover).fkLeftJoin},
		{apply: (*prover).selfOuterJoin},
		{apply: (*prover).outerJoinEmptySide},
		{apply: (*prover).leftJoinSelfKey},
		{apply: (*prover).leftJoinUnread},
		{apply: (*prover).leftJoinHoist},
		{apply: (*prover).leftJoinSwap},
		{apply: nodeOnly((*prover).nullTestsRejected)},
		{apply: nodeOnly((*prover).aggNullRowsDropped)},
		{apply: (*prover).isTrueConjuncts},
		{apply: nodeOnly((*prover).aggLeftJoinInner)},
		{apply: (*prover).aggConstantCalls},
		{apply: (*prover).distinctPinnedLimit},
		{apply: (*prover).groupOnEqualKey},
		{apply: (*prover).leftJoinProjectPull},
		{apply: (*prover).aggLeftJoinUnread},
		{apply: (*prover).limitAboveRowBound},
		{apply: (*prover).limitPastLeftJoin},
		{apply: (*prover).sortOverSortedLimit},
		{apply: (*prover).sortLimitUnion},
		{apply: (*prover).scalarValuesColumns},
		{apply: (*prover).decorrelate},
		{apply: nodeOnly((*prover).aggFilterWhere)},
		{apply: (*prover).countCaseFilter},
		{apply: (*prover).distinctJoinSemi, rule: ruleDistinctJoinSemi},
		{apply: (*prover).uniqueJoinSemi, rule: ruleUniqueJoinSemi},
		{apply: stateless(sortKeyPrefix), rule: ruleSortKeyPrefix},
		{apply: (*prover).antiJoinFK},
		{apply: stateless(havingCountZero), rule: ruleHavingCountZero},
		{apply: statelessNode(leftJoinAggFilter), rule: ruleLeftJoinAggFilter},
		{apply: stateless(countDistinctValues), rule: ruleCountDistinctValues},
		{apply: stateless(groupKeySwap), rule: ruleGroupKeySwap},
		{apply: (*prover).likeForms, rule: ruleLikeForms},
		{apply: statelessNode(timestampBounds), rule: ruleTimestamptzBound},
		{apply: (*prover).quantAgg},
		{apply: (*prover).unnest},
		{apply: statelessNode(existsLimit), rule: ruleExistsLimitNull},
		{apply: nodeOnly((*prover).anySemi), rule: ruleAnySemiJoin},
		{apply: statelessNode(existsOuter), rule: ruleExistsOuterConjunct},
		{apply: nodeOnly((*prover).notAnyAnti), rule: ruleNotAnyAntiJoin},
		{apply: (*prover).unionConstPull, rule: ruleUnionConstPull},
		{apply: (*prover).aggOverEmpty},
		{apply: statelessNode(filterValues), rule: ruleFilterValues},
	}
	simplifyLast = []simplifyStep{
		{apply: (*prover).groupDetermined},
		{apply: (*prover).aggDeterminedValue},
		{apply: (*prover).aggThroughJoin},
		{apply: (*prover).aggThroughUnion},
		{apply: (*prover).eagerAgg},
		{apply: (*prover).distinctBelow},
	}
}

// firstStep applies the first of steps that rewrites n, recording its
// rule, and returns the result, or nil when none applies.
func (p *prover) firstStep(steps []simplifyStep, n *plan.Node, m *plan.Metadata) *plan.Node {
	for _, s := range steps {
		if j := s.apply(p, n, m); j != nil {
			if s.rule != nil {
				p.rule(s.rule)
			}
			return j
		}
	}
	return nil
}

// nodeOnly, stateless and statelessNode fit the rewrites that read less
// than the prover, the node and its metadata into a simplifyStep.
func nodeOnly(f func(*prover, *plan.Node) *plan.Node) func(*prover, *plan.Node, *plan.Metadata) *plan.Node {
	return func(p *prover, n *plan.Node, _ *plan.Metadata) *plan.Node { return f(p, n) }
}

func stateless(f func(*plan.Node, *plan.Metadata) *plan.Node) func(*prover, *plan.Node, *plan.Metadata) *plan.Node {
	return func(_ *prover, n *plan.Node, m *plan.Metadata) *plan.Node { return f(n, m) }
}

func statelessNode(f func(*plan.Node) *plan.Node) func(*prover, *plan.Node, *plan.Metadata) *plan.Node {
	return func(_ *prover, n *plan.Node, _ *plan.Metadata) *plan.Node { return f(n) }
}

func simplifyOnce(n *plan.Node, m *plan.Metadata) (*plan.Node, *Rule) {
	switch n.Op {
	case plan.OpFilter:
		return filterIntoUnionAll(n, m)
	case plan.OpProject:
		return simplifyProject(n)
	case plan.OpLimit:
		if n.Offset == nil && n.Limit != nil && n.Limit.Kind == plan.Const && !n.Limit.Null && n.Limit.Typ == catalog.Int &&
			positiveInt(n.Limit.Value) && atMostOneRow(n.Inputs[0], m) {
			return n.Inputs[0], ruleLimitOneRow
		}
		return simplifyLimit(n, m)
	case plan.OpAggregate:
		return simplifyAggregate(n, m)
	}
	return nil, nil
}

// atMostOneRow reports whether n returns at most one row on any database.
func atMostOneRow(n *plan.Node, m *plan.Metadata) bool {
	switch n.Op {
	case plan.OpLimit:
		if n.Limit != nil && n.Limit.Kind == plan.Const && (n.Limit.Value == "0" || n.Limit.Value == "1") {
			return true
		}
		return atMostOneRow(n.Inputs[0], m)
	case plan.OpSort, plan.OpProject, plan.OpFilter, plan.OpDistinct:
		return atMostOneRow(n.Inputs[0], m)
	case plan.OpAggregate:
		if len(n.GroupBy) == 0 {
			return true
		}
	case plan.OpValues:
		return len(n.Rows) <= 1
	}
	return plan.Derive(n, m).AtMostOneRow()
}

// positiveInt says whether v is a whole number of at least 1.
func positiveInt(v string) bool {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	return err == nil && n >= 1
}
