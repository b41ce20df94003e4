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
	seen := map[string]bool{}
	var out []string
	addKey := func(k string) {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	add := func(kind string, name *pg.Node) {
		if s := name.GetString_(); s != nil {
			addKey(kind + strings.ToLower(s.Sval))
		}
	}
	addCall := func(kind string, parts []*pg.Node) {
		if k, ok := CallKey(parts); ok {
			addKey(kind + k)
		}
	}
	// ctes are the names of the CTEs in scope: a relation so named,
	// unqualified, is the CTE.
	var walk func(m protoreflect.Message, ctes []string)
	walk = func(m protoreflect.Message, ctes []string) {
		switch x := m.Interface().(type) {
		case *pg.FuncCall:
			if len(x.Funcname) > 0 {
				add(NameFunc, x.Funcname[len(x.Funcname)-1])
			}
			addCall(NameCall, x.Funcname)
		case *pg.A_Expr:
			if len(x.Name) > 0 {
				add(NameOperator, x.Name[len(x.Name)-1])
			}
			switch x.Kind {
			case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN,
				pg.A_Expr_Kind_AEXPR_BETWEEN_SYM, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
				// Its name is the keyword; the server runs >= and <=.
				addKey(NameOpCall + ">=")
				addKey(NameOpCall + "<=")
			default:
				addCall(NameOpCall, x.Name)
			}
		case *pg.SubLink:
			addCall(NameOpCall, x.OperName) // x = ANY (SELECT ...), (a, b) < (SELECT ...)
			if x.SubLinkType == pg.SubLinkType_ANY_SUBLINK && len(x.OperName) == 0 {
				addKey(NameOpCall + "=") // x IN (SELECT ...)
			}
		case *pg.RangeVar:
			add(NameRelation, pg.MakeStrNode(x.Relname))
			switch {
			case x.Schemaname != "":
				addKey(NameTable + chainKey([]string{x.Schemaname, x.Relname}))
			case !slices.Contains(ctes, x.Relname):
				addKey(NameTable + chainKey([]string{x.Relname}))
			}
		case *pg.TypeCast:
			// A cast to a domain runs its CHECK constraints.
			if tn := x.TypeName; tn != nil && len(tn.Names) > 0 {
				add(NameType, tn.Names[len(tn.Names)-1])
			}
		case *pg.ColumnRef:
			if len(x.Fields) > 1 {
				add(NameFunc, x.Fields[len(x.Fields)-1])
				if s := x.Fields[len(x.Fields)-1].GetString_(); s != nil {
					addKey(NameAttr + s.Sval)
				}
			}
		}
		// A WITH clause: each of its queries sees the CTEs before it (all
		// of them under RECURSIVE: a non-recursive CTE naming itself reads
		// a relation), and the rest of the statement sees them all.
		var w *pg.WithClause
		switch x := m.Interface().(type) {
		case *pg.SelectStmt:
			w = x.WithClause
		case *pg.InsertStmt:
			w = x.WithClause
		case *pg.UpdateStmt:
			w = x.WithClause
		case *pg.DeleteStmt:
			w = x.WithClause
		case *pg.MergeStmt:
			w = x.WithClause
		}
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
					walk(q.ProtoReflect(), append(slices.Clone(ctes), seen...))
				}
			}
			ctes = append(slices.Clone(ctes), names...)
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if fd.Message() == nil || fd.IsMap() || w != nil && fd.Name() == "with_clause" {
				return true
			}
			if fd.IsList() {
				l := v.List()
				for i := 0; i < l.Len(); i++ {
					walk(l.Get(i).Message(), ctes)
				}
			} else {
				walk(v.Message(), ctes)
			}
			return true
		})
	}
	walk(n.ProtoReflect(), nil)
	return out
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
