package main

import (
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A variant is one candidate built from a reference query: an
// equivalent rewrite (Equivalent true) or a bug mutation.
type variant struct {
	Kind       string // identity, reorder, or the mutation operator
	Equivalent bool
	SQL        string
}

// mutationOps are the bug mutations, a small subset of
// scripts/mutationsuite's operators (that command is package main and
// cannot be imported): each names a bug a person makes when editing a
// report query by hand.
var mutationOps = []string{
	"cmp_flip",       // the first column-versus-constant comparison flipped: = ↔ <>, < ↔ <=, > ↔ >=
	"drop_join_pred", // the first column = column conjunct of a WHERE removed
	"sum_max",        // the first sum() made max()
	"const_change",   // the first integer constant of a comparison made one larger
}

var cmpFlip = map[string]string{"=": "<>", "<>": "=", "<": "<=", "<=": "<", ">": ">=", ">=": ">"}

// variants parses sql (one statement) and returns its deparsed form,
// which is the reference every variant is judged against (so that both
// sides share pg_query's spelling), and the variants: the reference
// itself, the reference with every FROM list and every top-level WHERE
// conjunction reversed (when that changes anything), and one mutant per
// operator that has a site.
func variants(sql string) (string, []variant, error) {
	tree, err := parseOne(sql)
	if err != nil {
		return "", nil, err
	}
	ref, err := pg.Deparse(tree)
	if err != nil {
		return "", nil, fmt.Errorf("deparse: %w", err)
	}
	out := []variant{{Kind: "identity", Equivalent: true, SQL: ref}}
	seen := map[string]bool{ref: true}
	// reorder is issue 35's pair (both lists reordered); the other two,
	// when they differ from it, tell which list a pair left unproved
	// stumbles on.
	for _, k := range []struct {
		kind        string
		from, where bool
	}{{"reorder", true, true}, {"reorder_from", true, false}, {"reorder_where", false, true}} {
		t := proto.Clone(tree).(*pg.ParseResult)
		if reorder(t, k.from, k.where) == 0 {
			continue
		}
		s, err := pg.Deparse(t)
		if err != nil {
			return "", nil, fmt.Errorf("deparse reordered: %w", err)
		}
		if !seen[s] {
			seen[s] = true
			out = append(out, variant{Kind: k.kind, Equivalent: true, SQL: s})
		}
	}
	for _, op := range mutationOps {
		t := proto.Clone(tree).(*pg.ParseResult)
		if !mutate(t, op) {
			continue
		}
		s, err := pg.Deparse(t)
		if err != nil || s == ref {
			continue // a mutation pg_query cannot print is no candidate
		}
		out = append(out, variant{Kind: op, SQL: s})
	}
	return ref, out, nil
}

func parseOne(sql string) (*pg.ParseResult, error) {
	tree, err := pg.Parse(sql)
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	if len(tree.Stmts) != 1 {
		return nil, fmt.Errorf("parse: %d statements, want 1", len(tree.Stmts))
	}
	return tree, nil
}

// reorder reverses, in every SELECT of the tree (CTEs, subqueries and
// set-operation branches included), the comma-separated FROM list (from)
// and the top-level AND of WHERE (where), and returns how many lists it
// reversed.
// Both keep the query's meaning: inner joins commute and AND is
// commutative in SQL's three-valued logic. The one exception, an
// unqualified * over several FROM items (its columns follow the FROM
// order), keeps that FROM list as it is. Joins written with JOIN are
// left alone: a LEFT JOIN does not commute.
func reorder(tree *pg.ParseResult, from, where bool) int {
	n := 0
	visit(tree.ProtoReflect(), func(m proto.Message) {
		s, ok := m.(*pg.SelectStmt)
		if !ok {
			return
		}
		if from && len(s.FromClause) > 1 && !selectsStar(s) {
			reverse(s.FromClause)
			n++
		}
		if b := s.WhereClause.GetBoolExpr(); where && b != nil && b.Boolop == pg.BoolExprType_AND_EXPR && len(b.Args) > 1 {
			reverse(b.Args)
			n++
		}
	})
	return n
}

func reverse(l []*pg.Node) {
	for i, j := 0, len(l)-1; i < j; i, j = i+1, j-1 {
		l[i], l[j] = l[j], l[i]
	}
}

// selectsStar reports whether s's target list has an unqualified *.
func selectsStar(s *pg.SelectStmt) bool {
	for _, t := range s.TargetList {
		c := t.GetResTarget().GetVal().GetColumnRef()
		if c != nil && len(c.Fields) == 1 && c.Fields[0].GetAStar() != nil {
			return true
		}
	}
	return false
}

// mutate applies op at its first site in walk order and reports whether
// there was one.
func mutate(tree *pg.ParseResult, op string) bool {
	done := false
	visit(tree.ProtoReflect(), func(m proto.Message) {
		if done {
			return
		}
		switch x := m.(type) {
		case *pg.A_Expr:
			switch op {
			case "cmp_flip":
				if name := opName(x); cmpFlip[name] != "" && x.Kind == pg.A_Expr_Kind_AEXPR_OP && columnVersusConst(x) {
					x.Name = []*pg.Node{pg.MakeStrNode(cmpFlip[name])}
					done = true
				}
			case "const_change":
				if x.Kind != pg.A_Expr_Kind_AEXPR_OP || cmpFlip[opName(x)] == "" {
					return
				}
				for _, side := range []*pg.Node{x.Rexpr, x.Lexpr} {
					if c := side.GetAConst(); c != nil && c.GetIval() != nil {
						c.Val = &pg.A_Const_Ival{Ival: &pg.Integer{Ival: c.GetIval().GetIval() + 1}}
						done = true
						return
					}
				}
			}
		case *pg.FuncCall:
			if op == "sum_max" && len(x.Funcname) > 0 && x.Funcname[len(x.Funcname)-1].GetString_().GetSval() == "sum" {
				x.Funcname = []*pg.Node{pg.MakeStrNode("max")}
				done = true
			}
		case *pg.SelectStmt:
			if op != "drop_join_pred" || len(x.FromClause) < 2 {
				return
			}
			b := x.WhereClause.GetBoolExpr()
			if b == nil || b.Boolop != pg.BoolExprType_AND_EXPR {
				return
			}
			for i, a := range b.Args {
				if e := a.GetAExpr(); e != nil && opName(e) == "=" && e.Lexpr.GetColumnRef() != nil && e.Rexpr.GetColumnRef() != nil {
					b.Args = append(b.Args[:i:i], b.Args[i+1:]...)
					if len(b.Args) == 1 {
						x.WhereClause = b.Args[0]
					}
					done = true
					return
				}
			}
		}
	})
	return done
}

func opName(x *pg.A_Expr) string {
	if len(x.Name) != 1 {
		return ""
	}
	return x.Name[0].GetString_().GetSval()
}

// columnVersusConst reports whether x compares a column with a
// constant: a filter, where flipping the operator is a plausible slip.
func columnVersusConst(x *pg.A_Expr) bool {
	l, r := x.Lexpr, x.Rexpr
	return l.GetColumnRef() != nil && r.GetAConst() != nil || l.GetAConst() != nil && r.GetColumnRef() != nil
}

// visit calls f on every message of the tree, parents before children,
// in field-number order (a fixed order, unlike protoreflect's Range), so
// that "the first site" names the same node on every run.
func visit(m protoreflect.Message, f func(proto.Message)) {
	f(m.Interface())
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Kind() != protoreflect.MessageKind || !m.Has(fd) || fd.IsMap() {
			continue
		}
		if fd.IsList() {
			l := m.Get(fd).List()
			for j := 0; j < l.Len(); j++ {
				visit(l.Get(j).Message(), f)
			}
			continue
		}
		visit(m.Get(fd).Message(), f)
	}
}
