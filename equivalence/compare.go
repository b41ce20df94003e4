package equivalence

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// Component names, in the order differences are reported.
var componentOrder = []string{ComponentOutputColumns, "select", "from", "join", "join condition", "where", "group by",
	"aggregate", "having", "order by", "limit", "distinct", "set operation", "subquery", "values"}

// components are a plan's ESM+ components, each a multiset of canonical
// strings (select and order by are lists: their order is kept).
type components map[string][]string

// comparison is what compare found.
type comparison struct {
	ref, cand   components
	differences []Difference
	// matched/total count components for the ESM score.
	matched, total float64
}

// extract reads p's components, rendered by f (an anonymous formatter of
// p).
func extract(p *plan.Plan, f *plan.Formatter) components {
	c := components{}
	root := p.Root
	// The root chain: what the query returns and in which order.
	for n := root; n != nil; {
		switch n.Op {
		case plan.OpProject:
			for _, it := range n.Proj {
				c["select"] = append(c["select"], f.Expr(it.Expr))
			}
		case plan.OpSort:
			var keys []string
			for _, k := range n.Keys {
				s := f.Expr(k.Expr)
				if k.Desc {
					s += " desc"
				}
				if k.NullsFirst != k.Desc {
					if k.NullsFirst {
						s += " nulls first"
					} else {
						s += " nulls last"
					}
				}
				keys = append(keys, s)
			}
			c["order by"] = append(c["order by"], strings.Join(keys, ", "))
		}
		if n.Op == plan.OpProject || n.Op == plan.OpSort || n.Op == plan.OpLimit || n.Op == plan.OpDistinct {
			n = n.Inputs[0]
			continue
		}
		break
	}
	c[ComponentOutputColumns] = []string{fmt.Sprint(len(root.OutCols()))}
	var walk func(n *plan.Node, parent *plan.Node)
	walk = func(n *plan.Node, parent *plan.Node) {
		switch n.Op {
		case plan.OpScan:
			c["from"] = append(c["from"], n.Table.Name)
		case plan.OpFilter:
			comp := "where"
			if n.Inputs[0].Op == plan.OpAggregate {
				comp = "having"
			}
			for _, p := range n.Preds {
				c[comp] = append(c[comp], f.Expr(p))
			}
		case plan.OpJoin:
			c["join"] = append(c["join"], n.Join.String())
			for _, p := range n.Preds {
				c["join condition"] = append(c["join condition"], f.Expr(p))
			}
		case plan.OpAggregate:
			for _, g := range n.GroupBy {
				c["group by"] = append(c["group by"], f.Col(g))
			}
			for _, a := range n.Aggs {
				c["aggregate"] = append(c["aggregate"], f.Expr(a.Expr))
			}
		case plan.OpLimit:
			s := "LIMIT "
			if n.Limit != nil {
				s += f.Expr(n.Limit)
			} else {
				s += "ALL"
			}
			if n.Offset != nil {
				s += " OFFSET " + f.Expr(n.Offset)
			}
			c["limit"] = append(c["limit"], s)
		case plan.OpDistinct:
			c["distinct"] = append(c["distinct"], "DISTINCT")
		case plan.OpSetOp:
			s := strings.ToUpper(n.Set.String())
			if n.All {
				s += " ALL"
			}
			c["set operation"] = append(c["set operation"], s)
		case plan.OpValues:
			c["values"] = append(c["values"], f.Node(n))
		}
		n.Exprs(func(s **plan.Expr) {
			plan.Walk(*s, func(x *plan.Expr) {
				if x.Kind == plan.Subquery {
					c["subquery"] = append(c["subquery"], subKindName(x.SubKind))
					walk(x.Sub, n)
				}
			})
		})
		for _, in := range n.Inputs {
			walk(in, n)
		}
	}
	walk(root, nil)
	return c
}

func subKindName(k plan.SubKind) string {
	return [...]string{"scalar", "exists", "any", "all"}[k]
}

// compare finds component differences. Components match by their anonymous text; a
// difference is told in each query's own aliases (NewAliasFormatter), so
// the two instances of a self-join stay apart in the message.
func compare(refQ, candQ *prepared) comparison {
	cmp := comparison{ref: refQ.comps, cand: candQ.comps}
	var refLabels, candLabels components
	label := func(q *prepared, labels *components, comp string, keys []string, i int) string {
		if *labels == nil {
			*labels = extract(q.p, plan.NewAliasFormatter(q.p.Meta, q.p.Root))
		}
		l := (*labels)[comp]
		if len(l) != len(keys) {
			// Not parallel (cannot happen: extract walks the same plan).
			l = keys
		}
		if i < 0 {
			return strings.Join(l, ", ")
		}
		return l[i]
	}
	for _, comp := range componentOrder {
		r, c := cmp.ref[comp], cmp.cand[comp]
		if len(r) == 0 && len(c) == 0 {
			continue
		}
		cmp.total++
		ordered := comp == "select" || comp == "order by"
		missing, extra := diffMultiset(r, c, ordered)
		if len(missing) == 0 && len(extra) == 0 {
			cmp.matched++
			continue
		}
		cmp.matched += jaccard(r, c)
		ref := func(i int) string { return clip(label(refQ, &refLabels, comp, r, i)) }
		cand := func(i int) string { return clip(label(candQ, &candLabels, comp, c, i)) }
		switch {
		case len(missing) == len(extra):
			for i := range missing {
				cmp.differences = append(cmp.differences, Difference{Component: comp, Reference: ref(missing[i]), Candidate: cand(extra[i])})
			}
		default:
			for _, m := range missing {
				cmp.differences = append(cmp.differences, Difference{Component: comp, Reference: ref(m)})
			}
			for _, e := range extra {
				cmp.differences = append(cmp.differences, Difference{Component: comp, Candidate: cand(e)})
			}
		}
	}
	return cmp
}

// diffMultiset returns the positions of elements of r not matched in c
// and of c not in r, each in the order of their texts. Ordered lists are
// compared position by position; a difference there is the whole list,
// position -1.
func diffMultiset(r, c []string, ordered bool) (missing, extra []int) {
	if ordered {
		if strings.Join(r, "\x00") == strings.Join(c, "\x00") {
			return nil, nil
		}
		return []int{-1}, []int{-1}
	}
	count := map[string]int{}
	for _, x := range c {
		count[x]++
	}
	for i, x := range r {
		if count[x] > 0 {
			count[x]--
		} else {
			missing = append(missing, i)
		}
	}
	for i, x := range c {
		if count[x] > 0 {
			count[x]--
			extra = append(extra, i)
		}
	}
	sort.SliceStable(missing, func(i, j int) bool { return r[missing[i]] < r[missing[j]] })
	sort.SliceStable(extra, func(i, j int) bool { return c[extra[i]] < c[extra[j]] })
	return missing, extra
}

func jaccard(a, b []string) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	count := map[string]int{}
	for _, x := range a {
		count[x]++
	}
	inter := 0
	for _, x := range b {
		if count[x] > 0 {
			count[x]--
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
