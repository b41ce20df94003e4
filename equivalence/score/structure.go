package score

import (
	"context"
	"math"

	"github.com/pgequiv/pgequiv/equivalence/treeedit"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// RelPM parameters, tuned on the shared Spider pairs (see README):
// relPMAlpha weighs a node's own match against its children's, relPMBeta
// weighs recall of the reference over precision.
const (
	relPMAlpha = 0.1
	relPMBeta  = 2.0
)

// Shape is what the structural scores read of a plan: its relational
// tree for partial matching and its labelled tree for tree edit
// distance. It is read-only once built.
type Shape struct {
	rel *relNode
	ast *treeedit.Node
}

// NewShape reduces p for scoring; f is an anonymous formatter of p.
func NewShape(p *plan.Plan, f *plan.Formatter) *Shape {
	return &Shape{rel: relTree(p, f), ast: astTree(p, f)}
}

// Structural computes the structural scores of a pair: ESM from the
// components matched of those compared (matched of total), RelPM and
// AST-TE from the shapes, with notes on those approximated to stay
// within bounds. It stops with ctx's error.
func Structural(ctx context.Context, ref, cand *Shape, matched, total float64) (Scores, []string, error) {
	var s Scores
	var notes []string
	if total > 0 {
		s.ESM = matched / total
	}
	rt, ct := ref.rel, cand.rel
	m := &relMatcher{ctx: ctx}
	recall := m.match(rt, ct)
	precision := m.match(ct, rt)
	if m.err != nil {
		return s, nil, m.err
	}
	if m.positional {
		notes = append(notes, "relpm approximated: children matched by position in large plans")
	}
	if recall+precision > 0 {
		b2 := relPMBeta * relPMBeta
		s.RelPM = (1 + b2) * precision * recall / (b2*precision + recall)
	}
	sim, exact, err := treeedit.SimilarityContext(ctx, ref.ast, cand.ast)
	if err != nil {
		return s, nil, err
	}
	if !exact {
		notes = append(notes, "ast-te approximated: the trees are over the tree edit distance's size limit")
	}
	s.ASTTE = math.Max(0, sim)
	return s, notes, nil
}

// relNode is a plan node reduced to what partial matching compares: its
// operator and the tokens of its canonical description.
type relNode struct {
	op       plan.NodeOp
	tokens   map[string]int
	total    int // the sum of tokens' counts
	children []*relNode
}

// relTree reduces p for partial matching; f is an anonymous formatter of
// p.
func relTree(p *plan.Plan, f *plan.Formatter) *relNode {
	var conv func(n *plan.Node) *relNode
	conv = func(n *plan.Node) *relNode {
		line := f.Node(&plan.Node{Op: n.Op, Table: n.Table, Preds: n.Preds, Join: n.Join, Proj: n.Proj, GroupBy: n.GroupBy,
			Aggs: n.Aggs, Keys: n.Keys, Limit: n.Limit, Offset: n.Offset, Set: n.Set, All: n.All, Rows: n.Rows, Cols: n.Cols})
		r := &relNode{op: n.Op}
		r.tokens, r.total = tokenize(line)
		for _, in := range n.Inputs {
			r.children = append(r.children, conv(in))
		}
		// Subqueries are children too: their match matters as much.
		n.Exprs(func(s **plan.Expr) {
			plan.Walk(*s, func(x *plan.Expr) {
				if x.Kind == plan.Subquery {
					r.children = append(r.children, conv(x.Sub))
				}
			})
		})
		return r
	}
	return conv(p.Root)
}

// tokenize counts the tokens of s, split at spaces, parentheses, commas
// and braces, and returns their total.
func tokenize(s string) (map[string]int, int) {
	m := map[string]int{}
	total := 0
	start := -1
	for i := 0; i <= len(s); i++ {
		sep := i == len(s)
		if !sep {
			switch s[i] {
			case ' ', '(', ')', ',', '{', '}':
				sep = true
			}
		}
		switch {
		case sep && start >= 0:
			m[s[start:i]]++
			total++
			start = -1
		case !sep && start < 0:
			start = i
		}
	}
	return m, total
}

// tokenSim is the weighted Jaccard similarity of two token multisets,
// Σ min / Σ max, read from the smaller one: Σ max = |a| + |b| − Σ min.
func tokenSim(a, b map[string]int, totalA, totalB int) float64 {
	if len(b) < len(a) {
		a, b = b, a
	}
	inter := 0
	for k, x := range a {
		if y, ok := b[k]; ok {
			inter += min(x, y)
		}
	}
	union := totalA + totalB - inter
	if union == 0 {
		return 1
	}
	return float64(inter) / float64(union)
}

// Bounds on partial matching's work. Matching every child against every
// child costs the product of the children's counts at each level; above
// relPMMaxPairs children pairs under one node, or once relPMMaxWork token
// comparisons are spent, children are matched by position instead (a
// documented approximation, linear in the plans' size).
const (
	relPMMaxPairs = 4096
	relPMMaxWork  = 1 << 22
	relPMPoll     = 1 << 14 // token comparisons between context polls
)

// relMatcher computes relMatch within the bounds above.
type relMatcher struct {
	ctx        context.Context
	work, poll int
	positional bool // an approximation was made
	err        error
	sims       map[[2]*relNode]float64 // similarities of large nodes
}

// sim is tokenSim of two nodes, kept for the match in the other
// direction (recall and precision compare the same pairs).
func (m *relMatcher) sim(a, b *relNode) float64 {
	if len(a.tokens) < 64 && len(b.tokens) < 64 {
		return tokenSim(a.tokens, b.tokens, a.total, b.total)
	}
	k := [2]*relNode{a, b}
	if s, ok := m.sims[k]; ok {
		return s
	}
	s := tokenSim(a.tokens, b.tokens, a.total, b.total)
	if m.sims == nil {
		m.sims = map[[2]*relNode]float64{}
	}
	m.sims[k] = s
	m.sims[[2]*relNode{b, a}] = s
	return s
}

// match scores how well tree b covers tree a: a node's score is
// α·(its own match) + (1−α)·(mean over a's children of the best match
// among b's children).
func (m *relMatcher) match(a, b *relNode) float64 {
	if m.err != nil {
		return 0
	}
	m.work += 1 + min(len(a.tokens), len(b.tokens))
	if m.work-m.poll >= relPMPoll {
		m.poll = m.work
		if m.err = m.ctx.Err(); m.err != nil {
			return 0
		}
	}
	self := 0.0
	if a.op == b.op {
		self = m.sim(a, b)
	}
	if len(a.children) == 0 {
		if len(b.children) == 0 {
			return self
		}
		return relPMAlpha * self
	}
	sum := 0.0
	if len(a.children)*len(b.children) > relPMMaxPairs || m.work > relPMMaxWork {
		m.positional = true
		for i, ac := range a.children {
			if i < len(b.children) {
				sum += m.match(ac, b.children[i])
			}
		}
	} else {
		for _, ac := range a.children {
			best := 0.0
			for _, bc := range b.children {
				if s := m.match(ac, bc); s > best {
					best = s
				}
			}
			sum += best
		}
	}
	return relPMAlpha*self + (1-relPMAlpha)*sum/float64(len(a.children))
}

// astTree turns a normalized plan into a labelled tree for tree edit
// distance: operators with their expressions as subtrees.
func astTree(p *plan.Plan, f *plan.Formatter) *treeedit.Node {
	var expr func(e *plan.Expr) *treeedit.Node
	var node func(n *plan.Node) *treeedit.Node
	expr = func(e *plan.Expr) *treeedit.Node {
		var t treeedit.Node
		switch e.Kind {
		case plan.ColRef:
			t.Label = f.Col(e.Col)
			return &t
		case plan.Const:
			t.Label = f.Expr(e)
			return &t
		case plan.Subquery:
			t.Label = "subquery:" + [...]string{"scalar", "exists", "any", "all"}[e.SubKind] + e.SubOp
			for _, a := range e.Args {
				t.Children = append(t.Children, expr(a))
			}
			t.Children = append(t.Children, node(e.Sub))
			return &t
		}
		t.Label = e.Name
		if e.Distinct {
			t.Label += " distinct"
		}
		if e.Star {
			t.Label += "(*)"
		}
		if t.Label == "" {
			t.Label = "expr"
		}
		e.Children(func(s **plan.Expr) { t.Children = append(t.Children, expr(*s)) })
		return &t
	}
	node = func(n *plan.Node) *treeedit.Node {
		t := &treeedit.Node{Label: n.Op.String()}
		switch n.Op {
		case plan.OpScan:
			t.Label += " " + n.Table.Name
		case plan.OpJoin:
			t.Label += " " + n.Join.String()
		case plan.OpSetOp:
			t.Label += " " + n.Set.String()
			if n.All {
				t.Label += " all"
			}
		case plan.OpAggregate:
			for _, g := range n.GroupBy {
				t.Children = append(t.Children, &treeedit.Node{Label: "group " + f.Col(g)})
			}
		case plan.OpSort:
			for _, k := range n.Keys {
				c := expr(k.Expr)
				if k.Desc {
					c = &treeedit.Node{Label: "desc", Children: []*treeedit.Node{c}}
				}
				t.Children = append(t.Children, c)
			}
		}
		for _, p := range n.Preds {
			t.Children = append(t.Children, expr(p))
		}
		for _, it := range n.Proj {
			t.Children = append(t.Children, expr(it.Expr))
		}
		for _, it := range n.Aggs {
			t.Children = append(t.Children, expr(it.Expr))
		}
		if n.Limit != nil {
			t.Children = append(t.Children, &treeedit.Node{Label: "limit " + f.Expr(n.Limit)})
		}
		if n.Offset != nil {
			t.Children = append(t.Children, &treeedit.Node{Label: "offset " + f.Expr(n.Offset)})
		}
		for _, in := range n.Inputs {
			t.Children = append(t.Children, node(in))
		}
		return t
	}
	return node(p.Root)
}
