package tag

import (
	"fmt"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pgequiv/pgequiv/internal/sqltext"
)

// Kinds of the names in Statement.Names.
const (
	NameFunc     = "f:" // a function called, or a field of a qualified column reference (t.f may call f(t))
	NameOperator = "o:" // an operator
	NameRelation = "r:" // a relation read (a view may call a function)
	// NameCall is a genuine function call (never a column reference), as
	// the server resolves its name: "f" unqualified or pg_catalog.f,
	// "s.f" in any other schema, exact (the parser has folded unquoted
	// names; a quoted "Upper" is not upper). A schema from files has no
	// pg_proc to say which are VOLATILE (filefuncs.go in package judging).
	NameCall = "c:"
	// NameOpCall is an operator used, spelled as NameCall spells
	// functions ("s.+" for OPERATOR(s.+)); BETWEEN is its >= and <=.
	NameOpCall = "p:"
	// NameTable is a relation read that is no CTE in scope, spelled as
	// NameCall spells functions: with schema files, one the files do not
	// define may be a view that calls anything.
	NameTable = "t:"
	// NameAttr is the last field of a qualified column reference, as
	// written: t.f may be a column, or call f(t) (attribute notation).
	NameAttr = "a:"
	// NameType is the last name part of a type cast to, lowercased: a
	// cast to a domain runs its CHECK constraints.
	NameType = "d:"
)

// CalledNames lists the names calledNames finds in every statement of
// sql (a view's definition, in a schema from files).
func CalledNames(sql string) ([]string, error) {
	tree, err := pg.Parse(sql)
	if err != nil {
		return nil, fmt.Errorf("tag: %w", err)
	}
	var out []string
	for _, raw := range tree.Stmts {
		out = append(out, calledNames(raw.Stmt)...)
	}
	return out, nil
}

// calledNames lists what n names that can run code when read: functions,
// operators and relations (a view), each as its kind and its last name
// part, lowercased, once; calls and operators also as NameCall and
// NameOpCall, spelled by CallKey. The proxy checks them against the database's
// VOLATILE functions (issue 34, item 3): a plpgsql function that writes
// is a side effect whatever its name.
func calledNames(n *pg.Node) []string {
	if n == nil {
		return nil
	}
	l := nameLister{seen: map[string]bool{}}
	l.walk(n.ProtoReflect(), nil)
	return l.out
}

// nameLister collects calledNames' names, each once, in the order found.
type nameLister struct {
	seen map[string]bool
	out  []string
}

func (l *nameLister) addKey(k string) {
	if !l.seen[k] {
		l.seen[k] = true
		l.out = append(l.out, k)
	}
}

func (l *nameLister) add(kind string, name *pg.Node) {
	if s := name.GetString_(); s != nil {
		l.addKey(kind + strings.ToLower(s.Sval))
	}
}

func (l *nameLister) addCall(kind string, parts []*pg.Node) {
	if k, ok := CallKey(parts); ok {
		l.addKey(kind + k)
	}
}

// walk lists the names of m and of everything below it; ctes are the
// names of the CTEs in scope: a relation so named, unqualified, is the
// CTE.
func (l *nameLister) walk(m protoreflect.Message, ctes []string) {
	l.node(m, ctes)
	// A WITH clause: each of its queries sees the CTEs before it (all
	// of them under RECURSIVE: a non-recursive CTE naming itself reads
	// a relation), and the rest of the statement sees them all.
	w := withClause(m)
	if w != nil {
		var names []string
		for _, c := range w.Ctes {
			names = append(names, c.GetCommonTableExpr().GetCtename())
		}
		for i, c := range w.Ctes {
			seen := names[:i]
			if w.Recursive {
				seen = names
			}
			if q := c.GetCommonTableExpr().GetCtequery(); q != nil {
				l.walk(q.ProtoReflect(), append(slices.Clone(ctes), seen...))
			}
		}
		ctes = append(slices.Clone(ctes), names...)
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Message() == nil || fd.IsMap() || w != nil && fd.Name() == "with_clause" {
			return true
		}
		if fd.IsList() {
			list := v.List()
			for i := 0; i < list.Len(); i++ {
				l.walk(list.Get(i).Message(), ctes)
			}
		} else {
			l.walk(v.Message(), ctes)
		}
		return true
	})
}

// node lists the names m itself holds.
func (l *nameLister) node(m protoreflect.Message, ctes []string) {
	switch x := m.Interface().(type) {
	case *pg.FuncCall:
		if len(x.Funcname) > 0 {
			l.add(NameFunc, x.Funcname[len(x.Funcname)-1])
		}
		l.addCall(NameCall, x.Funcname)
	case *pg.A_Expr:
		if len(x.Name) > 0 {
			l.add(NameOperator, x.Name[len(x.Name)-1])
		}
		switch x.Kind {
		case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN,
			pg.A_Expr_Kind_AEXPR_BETWEEN_SYM, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
			// Its name is the keyword; the server runs >= and <=.
			l.addKey(NameOpCall + ">=")
			l.addKey(NameOpCall + "<=")
		default:
			l.addCall(NameOpCall, x.Name)
		}
	case *pg.SubLink:
		l.addCall(NameOpCall, x.OperName) // x = ANY (SELECT ...), (a, b) < (SELECT ...)
		if x.SubLinkType == pg.SubLinkType_ANY_SUBLINK && len(x.OperName) == 0 {
			l.addKey(NameOpCall + "=") // x IN (SELECT ...)
		}
	case *pg.RangeVar:
		l.add(NameRelation, pg.MakeStrNode(x.Relname))
		switch {
		case x.Schemaname != "":
			l.addKey(NameTable + chainKey([]string{x.Schemaname, x.Relname}))
		case !slices.Contains(ctes, x.Relname):
			l.addKey(NameTable + chainKey([]string{x.Relname}))
		}
	case *pg.TypeCast:
		// A cast to a domain runs its CHECK constraints.
		if tn := x.TypeName; tn != nil && len(tn.Names) > 0 {
			l.add(NameType, tn.Names[len(tn.Names)-1])
		}
	case *pg.ColumnRef:
		if len(x.Fields) > 1 {
			l.add(NameFunc, x.Fields[len(x.Fields)-1])
			if s := x.Fields[len(x.Fields)-1].GetString_(); s != nil {
				l.addKey(NameAttr + s.Sval)
			}
		}
	}
}

// withClause is the WITH clause of a statement, or nil.
func withClause(m protoreflect.Message) *pg.WithClause {
	switch x := m.Interface().(type) {
	case *pg.SelectStmt:
		return x.WithClause
	case *pg.InsertStmt:
		return x.WithClause
	case *pg.UpdateStmt:
		return x.WithClause
	case *pg.DeleteStmt:
		return x.WithClause
	case *pg.MergeStmt:
		return x.WithClause
	}
	return nil
}

// CallKey spells a qualified function or operator name, as the parser
// gives it (a call's, CREATE FUNCTION's), as NameCall does; ok is false
// for a name with no string last part. A three-part name's first part is
// the database.
func CallKey(parts []*pg.Node) (string, bool) {
	if len(parts) == 0 {
		return "", false
	}
	last := parts[len(parts)-1].GetString_()
	if last == nil {
		return "", false
	}
	if len(parts) == 1 {
		return chainKey([]string{last.Sval}), true
	}
	schema := parts[len(parts)-2].GetString_()
	if schema == nil {
		return "", false
	}
	return chainKey([]string{schema.Sval, last.Sval}), true
}

// quoteDot quotes a name part holding a dot, so that a quoted "s.f"
// never reads as function f of schema s.
func quoteDot(s string) string {
	if strings.Contains(s, ".") {
		return sqltext.QuoteIdent(s)
	}
	return s
}
