package tag

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Kinds of the names in Statement.Names.
const (
	NameFunc     = "f:" // a function called, or a field of a qualified column reference (t.f may call f(t))
	NameOperator = "o:" // an operator
	NameRelation = "r:" // a relation read (a view may call a function)
)

// calledNames lists what n names that can run code when read: functions,
// operators and relations (a view), each as its kind and its last name
// part, lowercased, once. The proxy checks them against the database's
// VOLATILE functions (issue 34, item 3): a plpgsql function that writes
// is a side effect whatever its name.
func calledNames(n *pg.Node) []string {
	if n == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	add := func(kind string, name *pg.Node) {
		if s := name.GetString_(); s != nil {
			k := kind + strings.ToLower(s.Sval)
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		switch x := m.Interface().(type) {
		case *pg.FuncCall:
			if len(x.Funcname) > 0 {
				add(NameFunc, x.Funcname[len(x.Funcname)-1])
			}
		case *pg.A_Expr:
			if len(x.Name) > 0 {
				add(NameOperator, x.Name[len(x.Name)-1])
			}
		case *pg.RangeVar:
			add(NameRelation, pg.MakeStrNode(x.Relname))
		case *pg.ColumnRef:
			if len(x.Fields) > 1 {
				add(NameFunc, x.Fields[len(x.Fields)-1])
			}
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if fd.Message() == nil || fd.IsMap() {
				return true
			}
			if fd.IsList() {
				l := v.List()
				for i := 0; i < l.Len(); i++ {
					walk(l.Get(i).Message())
				}
			} else {
				walk(v.Message())
			}
			return true
		})
	}
	walk(n.ProtoReflect())
	return out
}
