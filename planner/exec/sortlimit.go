package exec

import (
	"sort"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// sortCmp orders a and b by keys already evaluated into ka and kb, with
// NULLs placed as each key says (PostgreSQL: NULLS LAST for ASC, NULLS
// FIRST for DESC unless written otherwise).
func (x *executor) sortCmp(keys []plan.SortKey, ka, kb []Value) (int, error) {
	for i, k := range keys {
		a, b := ka[i], kb[i]
		var c int
		switch {
		case a.IsNull() && b.IsNull():
			c = 0
		case a.IsNull():
			c = 1
			if k.NullsFirst {
				c = -1
			}
		case b.IsNull():
			c = -1
			if k.NullsFirst {
				c = 1
			}
		default:
			var err error
			if c, err = x.compare(a, b); err != nil {
				return 0, err
			}
			if k.Desc {
				c = -c
			}
		}
		if c != 0 {
			return c, nil
		}
	}
	return 0, nil
}

func (x *executor) sort(n *plan.Node, outer *env) (*rel, error) {
	in, err := x.node(n.Inputs[0], outer)
	if err != nil {
		return nil, err
	}
	perm, ties, err := x.sortRows(n.Keys, in, outer)
	if err != nil {
		return nil, err
	}
	out := x.newRelLike(in)
	out.ties = ties
	out.rows = x.rowList(len(perm))
	for _, i := range perm {
		out.rows = append(out.rows, in.rows[i])
	}
	return out, nil
}

// sortRows returns the stable sorted order of in's rows by keys, and for
// each position its peer group number (equal keys share one).
func (x *executor) sortRows(keys []plan.SortKey, in *rel, outer *env) ([]int, []int, error) {
	kv := make([][]Value, len(in.rows))
	perm := make([]int, len(in.rows))
	e := &env{r: in, outer: outer}
	block := x.newRows(len(in.rows), len(keys))
	for i, row := range in.rows {
		perm[i] = i
		e.row = row
		kv[i] = block.next(len(keys))
		for j, k := range keys {
			v, err := x.eval(k.Expr, e)
			if err != nil {
				return nil, nil, err
			}
			kv[i][j] = v
		}
	}
	var cmpErr error
	sort.SliceStable(perm, func(a, b int) bool {
		c, err := x.sortCmp(keys, kv[perm[a]], kv[perm[b]])
		if err != nil && cmpErr == nil {
			cmpErr = err
		}
		return c < 0
	})
	if cmpErr != nil {
		return nil, nil, cmpErr
	}
	ties := make([]int, len(perm))
	for p := 1; p < len(perm); p++ {
		ties[p] = ties[p-1]
		if c, _ := x.sortCmp(keys, kv[perm[p-1]], kv[perm[p]]); c != 0 {
			ties[p]++
		}
	}
	return perm, ties, nil
}

func (x *executor) limit(n *plan.Node, outer *env) (*rel, error) {
	in, err := x.node(n.Inputs[0], outer)
	if err != nil {
		return nil, err
	}
	bound := func(e *plan.Expr, what string) (int64, bool, error) {
		if e == nil {
			return 0, false, nil
		}
		v, err := x.eval(e, outer)
		if err != nil {
			return 0, false, err
		}
		switch v.K {
		case KNull:
			if x.lite {
				// SQLite refuses a NULL bound (LIMIT $1 bound to NULL);
				// PostgreSQL reads it as none.
				return 0, false, queryErr("datatype mismatch: %s NULL", what)
			}
			return 0, false, nil
		case KInt:
			if v.I < 0 && x.lite {
				// SQLite: a negative LIMIT means none, a negative OFFSET 0.
				return 0, what == "OFFSET", nil
			}
			if v.I < 0 {
				return 0, false, queryErr("%s must not be negative", what)
			}
			return v.I, true, nil
		}
		return 0, false, cannot("%s of kind %s", what, kindName(v.K))
	}
	lim, hasLim, err := bound(n.Limit, "LIMIT")
	if err != nil {
		return nil, err
	}
	off, _, err := bound(n.Offset, "OFFSET")
	if err != nil {
		return nil, err
	}
	total := int64(len(in.rows))
	start := min(off, total)
	end := total
	if hasLim {
		end = min(start+lim, total)
	}
	// The kept rows are determined only if no cut separates two rows the
	// input does not order.
	for _, cut := range []int64{start, end} {
		if cut <= 0 || cut >= total || x.countOnly(n) {
			continue
		}
		if in.ties == nil || in.ties[cut-1] == in.ties[cut] {
			if x.countFixed(n) {
				x.nondetRows = true
			} else {
				x.nondet = true
			}
		}
	}
	out := x.newRelLike(in)
	out.rows = in.rows[start:end]
	if in.ties != nil {
		out.ties = in.ties[start:end]
	}
	return out, nil
}
