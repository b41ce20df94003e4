package exec

import (
	"math/big"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// aggregate groups rows by GroupBy (NULLs form one group) in order of
// first appearance. Without grouping columns it yields exactly one row,
// even over no input, as SQL's scalar aggregation does.
func (x *executor) aggregate(n *plan.Node, outer *env) (*rel, error) {
	in, err := x.node(n.Inputs[0], outer)
	if err != nil {
		return nil, err
	}
	gidx := make([]int, len(n.GroupBy))
	for i, c := range n.GroupBy {
		j, ok := in.index(c)
		if !ok {
			return nil, cannot("grouping column %d missing from input", c)
		}
		gidx[i] = j
	}
	var order []string
	groups := map[string][][]Value{}
	if len(gidx) == 0 {
		// One group of every row (and one over no rows).
		order = append(order, rowKey(nil))
		groups[order[0]] = in.rows
	}
	key := make([]Value, len(gidx))
	reps := map[string]string{}
	for _, row := range in.rows {
		if len(gidx) == 0 {
			break
		}
		for i, j := range gidx {
			key[i] = row[j]
		}
		k := rowKey(key)
		if x.coll {
			var err error
			if k, err = looseRowKey(key, reps); err != nil {
				return nil, err
			}
		}
		if g, ok := groups[k]; !ok {
			order = append(order, k)
		} else if err := spelledApart(gidx, g[0], row); err != nil {
			return nil, err
		}
		groups[k] = append(groups[k], row)
	}
	out := x.newRel(n.OutCols())
	out.rows = x.rowList(len(order))
	block := x.newRows(len(order), len(gidx)+len(n.Aggs))
	for _, k := range order {
		rows := groups[k]
		vals := block.next(len(gidx) + len(n.Aggs))
		for i, j := range gidx {
			vals[i] = rows[0][j]
		}
		for i, a := range n.Aggs {
			v, err := x.aggCall(a.Expr, in, rows, outer)
			if err != nil {
				return nil, err
			}
			if x.lite && a.Expr.Name != "any_value" {
				// An aggregate's result is no column's. any_value is the
				// planner's stand-in for a column the grouping determines
				// (reduce-group-by-by-fd), which SQLite still reads as
				// that column, collation and all.
				v = untag(v)
			}
			vals[len(gidx)+i] = v
		}
		out.rows = append(out.rows, vals)
	}
	return out, nil
}

// aggCall evaluates one aggregate over the rows of a group: FILTER keeps
// rows where it is TRUE, NULL arguments are skipped (except by count(*)),
// DISTINCT keeps one of each value.
func (x *executor) aggCall(a *plan.Expr, in *rel, rows [][]Value, outer *env) (Value, error) {
	if a.Kind != plan.Agg {
		return Null, cannot("aggregate output that is a %s expression", a.Kind)
	}
	if a.Name == "string_agg" || a.Name == "group_concat" {
		return x.stringAgg(a, in, rows, outer)
	}
	if a.Name == "regr_count" {
		return x.regrCount(a, in, rows, outer)
	}
	var vals []Value
	count := 0
	seen := map[string]bool{}
	e := &env{r: in, outer: outer}
	for _, row := range rows {
		e.row = row
		if a.Filter != nil {
			ok, err := x.where([]*plan.Expr{a.Filter}, e)
			if err != nil {
				return Null, err
			}
			if !ok {
				continue
			}
		}
		if a.Star {
			count++
			continue
		}
		if len(a.Args) != 1 {
			return Null, cannot("aggregate %s of %d arguments", a.Name, len(a.Args))
		}
		v, err := x.eval(a.Args[0], e)
		if err != nil {
			return Null, err
		}
		if v.IsNull() {
			continue
		}
		if x.coll && v.K == KText && v.Scale == collPGNondet {
			return Null, cannot("aggregate over values of a nondeterministic collation")
		}
		if a.Distinct {
			if seen[v.Key()] {
				continue
			}
			seen[v.Key()] = true
		}
		vals = append(vals, v)
	}
	if a.Star {
		return Int(int64(count)), nil
	}
	if x.lite {
		if liteSumVaries(a.Name, vals) {
			x.nondet = true // the version's choice: 3.43+ compensates
		}
		return liteReduce(a.Name, vals)
	}
	v, err := reduce(a.Name, vals)
	if err == nil && a.Name == "sum" && a.Typ == catalog.Numeric && v.K == KInt {
		// PostgreSQL's sum of int8 is a numeric (the planner types it so
		// where the argument is not surely a narrow integer): it divides
		// exactly.
		v = toNumeric(v)
	}
	return v, err
}

// reduce folds the non-NULL argument values of one aggregate.
func reduce(name string, vals []Value) (Value, error) {
	switch name {
	case "count":
		return Int(int64(len(vals))), nil
	case "sum", "avg":
		if len(vals) == 0 {
			return Null, nil
		}
		if vals[0].IsFloat4() {
			return reduceFloat4(name, vals)
		}
		sum := vals[0]
		if sum.K == KInt && name == "sum" {
			// sum(integer) is bigint or numeric in PostgreSQL; summing
			// exactly and failing only beyond int64 matches both.
			sum = toNumeric(sum)
		}
		for _, v := range vals[1:] {
			var err error
			if sum, err = arith("+", sum, v); err != nil {
				return Null, err
			}
		}
		if name == "sum" {
			if vals[0].K == KInt {
				if !sum.R.IsInt() || !sum.R.Num().IsInt64() {
					return Null, queryErr("bigint out of range")
				}
				return Int(sum.R.Num().Int64()), nil
			}
			return sum, nil
		}
		if sum.K == KFloat {
			return Float(sum.F / float64(len(vals))), nil
		}
		if !isNumber(sum.K) {
			return Null, cannot("avg of %s", kindName(sum.K))
		}
		return numDiv(toNumeric(sum), NumericRat(new(big.Rat).SetInt64(int64(len(vals))), 0))
	case "min", "max", "any_value":
		if len(vals) == 0 {
			return Null, nil
		}
		best := vals[0]
		tie := false // best ties a different spelling (collation.go)
		var tied error
		for _, v := range vals[1:] {
			c, err := Compare(v, best)
			if err != nil {
				return Null, err
			}
			tie = tie || collTie(c, v, best)
			if name == "any_value" && c != 0 {
				// The planner only introduces any_value where the value is
				// determined; differing values mean an arbitrary choice.
				return Null, cannot("any_value over differing values")
			}
			if (name == "max" && c > 0) || (name == "min" && c < 0) {
				best, tie, tied = v, false, nil
			} else if c == 0 && tied == nil {
				tied = spelledApart(nil, []Value{best}, []Value{v})
			}
		}
		if tie {
			return Null, cannot("min/max tie between values equal only under their collation")
		}
		if tied != nil {
			return Null, tied // equal intervals spelled apart: PostgreSQL returns either
		}
		return best, nil
	case "bit_and", "bit_or", "bit_xor":
		if len(vals) == 0 {
			return Null, nil
		}
		var acc int64
		for i, v := range vals {
			if v.K != KInt {
				return Null, cannot("%s of %s", name, kindName(v.K))
			}
			switch {
			case i == 0:
				acc = v.I
			case name == "bit_and":
				acc &= v.I
			case name == "bit_or":
				acc |= v.I
			default:
				acc ^= v.I
			}
		}
		return Int(acc), nil
	case "bool_and", "every", "bool_or":
		if len(vals) == 0 {
			return Null, nil
		}
		want := name == "bool_or"
		for _, v := range vals {
			if v.K != KBool {
				return Null, cannot("%s of %s", name, kindName(v.K))
			}
			if v.B == want {
				return Bool(want), nil
			}
		}
		return Bool(!want), nil
	}
	return Null, cannot("aggregate %s", name)
}

// stringAgg concatenates the non-NULL values of a group with the
// delimiter of each value's row before every value but the first
// (PostgreSQL's string_agg; SQLite's group_concat and string_agg, whose
// delimiter defaults to a comma). Neither engine promises an order, so a
// result that depends on the order of the group's rows is marked
// nondeterministic.
func (x *executor) stringAgg(a *plan.Expr, in *rel, rows [][]Value, outer *env) (Value, error) {
	if a.Star || len(a.Args) < 1 || len(a.Args) > 2 || (len(a.Args) == 1 && (!x.lite || a.Name != "group_concat")) {
		return Null, cannot("%s of %d arguments", a.Name, len(a.Args))
	}
	if a.Distinct && len(a.Args) == 2 && a.Args[1].Kind != plan.Const {
		// DISTINCT ranges over (value, delimiter) pairs; with a constant
		// delimiter that is over values.
		return Null, cannot("%s(DISTINCT) with a varying delimiter", a.Name)
	}
	if x.mentionsBp(a.Args[0]) || len(a.Args) == 2 && x.mentionsBp(a.Args[1]) {
		return Null, cannot("%s of a char(n) value", a.Name)
	}
	type piece struct{ val, delim string }
	var parts []piece
	seen := map[string]bool{}
	for _, row := range rows {
		e := &env{r: in, row: row, outer: outer}
		if a.Filter != nil {
			ok, err := x.where([]*plan.Expr{a.Filter}, e)
			if err != nil {
				return Null, err
			}
			if !ok {
				continue
			}
		}
		v, err := x.eval(a.Args[0], e)
		if err != nil {
			return Null, err
		}
		if v.IsNull() {
			continue
		}
		d := Text(",")
		if len(a.Args) == 2 {
			if d, err = x.eval(a.Args[1], e); err != nil {
				return Null, err
			}
		}
		var p piece
		switch {
		case x.lite:
			if d.IsNull() {
				return Null, cannot("%s with a NULL delimiter", a.Name)
			}
			p = piece{x.liteTextOf(v), x.liteTextOf(d)}
		case v.K != KText || (d.K != KText && !d.IsNull()):
			// PostgreSQL has string_agg(text, text) and bytea only.
			return Null, cannot("%s of %s", a.Name, kindName(v.K))
		default:
			p = piece{v.S, d.S} // a NULL delimiter joins with nothing
		}
		if a.Distinct {
			if seen[p.val] {
				continue
			}
			seen[p.val] = true
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return Null, nil
	}
	var b strings.Builder
	b.WriteString(parts[0].val)
	for _, p := range parts[1:] {
		if p != parts[0] {
			x.nondet = true
		}
		b.WriteString(p.delim + p.val)
	}
	return Text(b.String()), nil
}

// regrCount counts the rows where neither argument is NULL
// (PostgreSQL's regr_count(y, x)).
func (x *executor) regrCount(a *plan.Expr, in *rel, rows [][]Value, outer *env) (Value, error) {
	if a.Star || a.Distinct || len(a.Args) != 2 {
		return Null, cannot("regr_count of %d arguments", len(a.Args))
	}
	count := 0
	e := &env{r: in, outer: outer}
rows:
	for _, row := range rows {
		e.row = row
		if a.Filter != nil {
			ok, err := x.where([]*plan.Expr{a.Filter}, e)
			if err != nil {
				return Null, err
			}
			if !ok {
				continue
			}
		}
		for _, arg := range a.Args {
			v, err := x.eval(arg, e)
			if err != nil {
				return Null, err
			}
			if v.IsNull() {
				continue rows
			}
		}
		count++
	}
	return Int(int64(count)), nil
}
