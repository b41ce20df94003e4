package main

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// operators are the mutation operators, in report order. Each names a
// bug a person makes when rewriting a query by hand.
var operators = []string{
	"cmp_flip",       // = ↔ <>, < ↔ <=, > ↔ >=
	"like_not",       // LIKE ↔ NOT LIKE (ILIKE too)
	"in_not",         // IN ↔ NOT IN (lists and subqueries)
	"drop_join_pred", // a column = column conjunct of ON or WHERE removed
	"inner_left",     // INNER JOIN … ON → LEFT JOIN
	"drop_distinct",  // SELECT DISTINCT → SELECT
	"count_distinct", // count(DISTINCT x) → count(x)
	"sum_max",        // sum → max
	"const_change",   // an integer literal + 1, a string literal changed
	"and_or",         // AND ↔ OR
	"drop_group_key", // one of several GROUP BY keys removed
	"order_dir",      // the first ORDER BY key's direction flipped, under a LIMIT
	"union_all",      // UNION ↔ UNION ALL
}

var cmpFlip = map[string]string{"=": "<>", "<>": "=", "<": "<=", "<=": "<", ">": ">=", ">=": ">"}

// Mutant is one mutation of a query.
type Mutant struct {
	Op   string
	Site int // which of the operator's sites, in walk order
	SQL  string
}

// Mutants parses sql, and returns its deparsed form (the reference the
// mutants are judged against, so that both sides share one spelling)
// and up to perOp mutants per operator, the sites chosen by seed.
func Mutants(sql string, perOp int, seed uint64) (string, []Mutant, error) {
	tree, err := pg.Parse(sql)
	if err != nil {
		return "", nil, fmt.Errorf("parse: %w", err)
	}
	if len(tree.Stmts) != 1 {
		return "", nil, fmt.Errorf("parse: %d statements", len(tree.Stmts))
	}
	ref, err := pg.Deparse(tree)
	if err != nil {
		return "", nil, fmt.Errorf("deparse: %w", err)
	}
	var out []Mutant
	for _, op := range operators {
		n := countSites(tree, op)
		sites := make([]int, n)
		for i := range sites {
			sites[i] = i
		}
		if n > perOp {
			h := fnv.New64a()
			fmt.Fprintf(h, "%s\x00%s", op, sql)
			r := rand.New(rand.NewPCG(seed, h.Sum64()))
			r.Shuffle(n, func(i, j int) { sites[i], sites[j] = sites[j], sites[i] })
			sites = sites[:perOp]
		}
		for _, k := range sites {
			t := proto.Clone(tree).(*pg.ParseResult)
			if !applySite(t, op, k) {
				continue
			}
			m, err := pg.Deparse(t)
			if err != nil || m == ref {
				continue
			}
			out = append(out, Mutant{Op: op, Site: k, SQL: m})
		}
	}
	return ref, out, nil
}

func countSites(tree *pg.ParseResult, op string) int {
	w := &walker{op: op, target: -1}
	w.walk(tree.ProtoReflect())
	return w.seen
}

func applySite(tree *pg.ParseResult, op string, k int) bool {
	w := &walker{op: op, target: k}
	w.walk(tree.ProtoReflect())
	return w.done
}

// walker visits every message of a parse tree in field-number order (a
// fixed order, unlike protoreflect's Range) and counts the sites of one
// operator, mutating the target-th.
type walker struct {
	op     string
	target int
	seen   int
	done   bool
	// skip holds nodes that are no site of their own: an ORDER BY or
	// GROUP BY ordinal (changing it names another column, or none), the
	// subquery of a NOT IN (the NOT around it is the site).
	skip map[proto.Message]bool
}

// site counts one site and reports whether it is the one to mutate.
func (w *walker) site() bool {
	hit := w.seen == w.target
	w.seen++
	if hit {
		w.done = true
	}
	return hit
}

func (w *walker) walk(m protoreflect.Message) {
	if w.done {
		return
	}
	if msg := m.Interface(); !w.skip[msg] {
		w.visit(msg)
	}
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len() && !w.done; i++ {
		f := fields.Get(i)
		if f.Kind() != protoreflect.MessageKind || !m.Has(f) {
			continue
		}
		if f.IsList() {
			l := m.Get(f).List()
			for j := 0; j < l.Len() && !w.done; j++ {
				w.walk(l.Get(j).Message())
			}
		} else if !f.IsMap() {
			w.walk(m.Get(f).Message())
		}
	}
}

func (w *walker) visit(msg proto.Message) {
	switch x := msg.(type) {
	case *pg.A_Expr:
		w.visitAExpr(x)
	case *pg.SortBy:
		w.skipConst(x.Node)
	case *pg.Node:
		if b := x.GetBoolExpr(); b != nil && w.op == "in_not" && b.Boolop == pg.BoolExprType_NOT_EXPR && len(b.Args) == 1 && isIn(b.Args[0]) {
			w.skipNode(b.Args[0])
			if w.site() {
				x.Node = b.Args[0].Node // NOT IN (subquery) → IN
			}
		}
		if s := x.GetSubLink(); isIn(x) && w.op == "in_not" {
			if w.site() {
				x.Node = &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: pg.BoolExprType_NOT_EXPR,
					Args: []*pg.Node{{Node: &pg.Node_SubLink{SubLink: s}}}}}
			}
		}
	case *pg.JoinExpr:
		switch w.op {
		case "inner_left":
			if x.Jointype == pg.JoinType_JOIN_INNER && x.Quals != nil && w.site() {
				x.Jointype = pg.JoinType_JOIN_LEFT
			}
		case "drop_join_pred":
			w.dropEquality(&x.Quals)
		}
	case *pg.SelectStmt:
		w.visitSelect(x)
	case *pg.FuncCall:
		name := funcName(x)
		switch {
		case w.op == "count_distinct" && name == "count" && x.AggDistinct:
			if w.site() {
				x.AggDistinct = false
			}
		case w.op == "sum_max" && name == "sum":
			if w.site() {
				x.Funcname = []*pg.Node{pg.MakeStrNode("max")}
			}
		}
	case *pg.A_Const:
		if w.op != "const_change" || x.Isnull {
			return
		}
		switch v := x.Val.(type) {
		case *pg.A_Const_Ival:
			if w.site() {
				x.Val = &pg.A_Const_Ival{Ival: &pg.Integer{Ival: v.Ival.GetIval() + 1}}
			}
		case *pg.A_Const_Sval:
			if w.site() {
				x.Val = &pg.A_Const_Sval{Sval: &pg.String{Sval: v.Sval.GetSval() + "x"}}
			}
		}
	case *pg.BoolExpr:
		if w.op == "and_or" && x.Boolop != pg.BoolExprType_NOT_EXPR && w.site() {
			if x.Boolop == pg.BoolExprType_AND_EXPR {
				x.Boolop = pg.BoolExprType_OR_EXPR
			} else {
				x.Boolop = pg.BoolExprType_AND_EXPR
			}
		}
	}
}

func (w *walker) visitAExpr(x *pg.A_Expr) {
	if len(x.Name) != 1 {
		return
	}
	name := x.Name[0].GetString_().GetSval()
	set := func(s string) { x.Name = []*pg.Node{pg.MakeStrNode(s)} }
	switch {
	case w.op == "cmp_flip" && x.Kind == pg.A_Expr_Kind_AEXPR_OP && cmpFlip[name] != "":
		if w.site() {
			set(cmpFlip[name])
		}
	case w.op == "like_not" && (x.Kind == pg.A_Expr_Kind_AEXPR_LIKE || x.Kind == pg.A_Expr_Kind_AEXPR_ILIKE):
		flip := map[string]string{"~~": "!~~", "!~~": "~~", "~~*": "!~~*", "!~~*": "~~*"}[name]
		if flip != "" && w.site() {
			set(flip)
		}
	case w.op == "in_not" && x.Kind == pg.A_Expr_Kind_AEXPR_IN && (name == "=" || name == "<>"):
		if w.site() {
			set(map[string]string{"=": "<>", "<>": "="}[name])
		}
	}
}

func (w *walker) visitSelect(x *pg.SelectStmt) {
	for _, g := range x.GroupClause {
		w.skipConst(g)
	}
	switch w.op {
	case "drop_join_pred":
		if len(x.FromClause) > 1 {
			w.dropEquality(&x.WhereClause)
		}
	case "drop_distinct":
		if len(x.DistinctClause) > 0 && w.site() {
			x.DistinctClause = nil
		}
	case "drop_group_key":
		if len(x.GroupClause) >= 2 {
			for i := range x.GroupClause {
				if w.site() {
					x.GroupClause = append(x.GroupClause[:i:i], x.GroupClause[i+1:]...)
					return
				}
			}
		}
	case "order_dir":
		if x.LimitCount != nil && len(x.SortClause) > 0 && w.site() {
			s := x.SortClause[0].GetSortBy()
			if s == nil {
				return
			}
			if s.SortbyDir == pg.SortByDir_SORTBY_DESC {
				s.SortbyDir = pg.SortByDir_SORTBY_ASC
			} else {
				s.SortbyDir = pg.SortByDir_SORTBY_DESC
			}
		}
	case "union_all":
		if x.Op == pg.SetOperation_SETOP_UNION && w.site() {
			x.All = !x.All
		}
	}
}

// dropEquality counts the column = column conjuncts of *q (a join
// predicate) as sites, and removes the target one: a lone predicate
// becomes TRUE.
func (w *walker) dropEquality(q **pg.Node) {
	if *q == nil {
		return
	}
	if b := (*q).GetBoolExpr(); b != nil && b.Boolop == pg.BoolExprType_AND_EXPR {
		for i, a := range b.Args {
			if isColumnEquality(a) && w.site() {
				b.Args = append(b.Args[:i:i], b.Args[i+1:]...)
				if len(b.Args) == 1 {
					*q = b.Args[0]
				}
				return
			}
		}
		return
	}
	if isColumnEquality(*q) && w.site() {
		*q = &pg.Node{Node: &pg.Node_AConst{AConst: &pg.A_Const{Val: &pg.A_Const_Boolval{Boolval: &pg.Boolean{Boolval: true}}}}}
	}
}

func (w *walker) skipNode(n *pg.Node) {
	if w.skip == nil {
		w.skip = map[proto.Message]bool{}
	}
	w.skip[n] = true
}

func (w *walker) skipConst(n *pg.Node) {
	if c := n.GetAConst(); c != nil {
		if w.skip == nil {
			w.skip = map[proto.Message]bool{}
		}
		w.skip[c] = true
	}
}

// isIn reports whether n is an IN (subquery).
func isIn(n *pg.Node) bool {
	s := n.GetSubLink()
	return s != nil && s.SubLinkType == pg.SubLinkType_ANY_SUBLINK && len(s.OperName) == 0
}

func isColumnEquality(n *pg.Node) bool {
	e := n.GetAExpr()
	if e == nil || e.Kind != pg.A_Expr_Kind_AEXPR_OP || len(e.Name) != 1 || e.Name[0].GetString_().GetSval() != "=" {
		return false
	}
	return e.Lexpr.GetColumnRef() != nil && e.Rexpr.GetColumnRef() != nil
}

func funcName(f *pg.FuncCall) string {
	if len(f.Funcname) == 0 {
		return ""
	}
	return f.Funcname[len(f.Funcname)-1].GetString_().GetSval()
}
