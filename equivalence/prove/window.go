package prove

import (
	"slices"
	"strconv"
	"strings"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// window compares two window nodes: equivalent inputs and, for each of
// b's window calls, one of a's with the same function, arguments,
// partition (as a set), order keys and frame (under the column mapping).
// The calls are computed from the same partitions of the same rows, so
// they take the same values. nth_value(x, 1) is first_value(x): both are
// x at the frame's first row, NULL when the frame is empty.
func (p *prover) window(a, b *plan.Node) (bool, error) {
	if ok, err := p.passThrough(a.Inputs[0], b.Inputs[0]); err != nil || !ok {
		return false, err
	}
	if len(a.Proj) != len(b.Proj) {
		return false, nil
	}
	keysA := make([]string, len(a.Proj))
	nth := false
	for i, it := range a.Proj {
		k, ok, n := p.winKey(it.Expr, p.colA, p.subA)
		if !ok {
			return false, nil
		}
		keysA[i], nth = k, nth || n
	}
	for _, it := range b.Proj {
		k, ok, n := p.winKey(it.Expr, p.colB, p.subB)
		if !ok {
			return false, nil
		}
		nth = nth || n
		i := slices.Index(keysA, k)
		if i < 0 {
			p.note("window call %s of b has no match", k)
			return false, nil
		}
		p.set(it.ID, a.Proj[i].ID)
	}
	if nth {
		p.rule(ruleNthValueFirst)
	}
	p.rule(ruleWindowSame)
	return true, nil
}

// winKey names a window call; nth reports an nth_value(x, 1) read as
// first_value(x).
func (p *prover) winKey(e *plan.Expr, col func(plan.ColumnID) (plan.ColumnID, bool), sub subKeyer) (key string, ok, nth bool) {
	if e.Kind != plan.WinFunc {
		return "", false, false
	}
	name, args := e.Name, e.Args
	if name == "nth_value" && len(args) == 2 && args[1].Kind == plan.Const && !args[1].Null && strings.TrimSpace(args[1].Value) == "1" {
		name, args, nth = "first_value", args[:1], true
	}
	var b strings.Builder
	b.WriteString("win " + name + " " + e.Value + " " + e.Typ.String())
	if e.Distinct {
		b.WriteString(" distinct")
	}
	if e.Star {
		b.WriteString("*")
	}
	keys := func(es []*plan.Expr) ([]string, bool) {
		out := make([]string, len(es))
		for i, x := range es {
			k, ok := exprKeySub(x, col, sub)
			if !ok {
				return nil, false
			}
			out[i] = k
		}
		return out, true
	}
	as, ok := keys(args)
	if !ok {
		return "", false, false
	}
	b.WriteString(" (" + strings.Join(as, ",") + ")")
	ps, ok := keys(e.Partition)
	if !ok {
		return "", false, false
	}
	slices.Sort(ps)
	b.WriteString(" partition " + strings.Join(ps, ","))
	for _, o := range e.Order {
		k, ok := exprKeySub(o.Expr, col, sub)
		if !ok {
			return "", false, false
		}
		b.WriteString(" order " + k + " " + strconv.FormatBool(o.Desc) + " " + strconv.FormatBool(o.NullsFirst))
	}
	if e.Filter != nil && !e.Filter.IsTrue() {
		k, ok := exprKeySub(e.Filter, col, sub)
		if !ok {
			return "", false, false
		}
		b.WriteString(" filter " + k)
	}
	return b.String(), true, nth
}
