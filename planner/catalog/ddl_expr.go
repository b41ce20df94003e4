package catalog

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// deparseExpr writes an expression of the DDL back as SQL, by deparsing
// SELECT <expr> and taking the select list.
func deparseExpr(e *pg.Node) (string, error) {
	if e == nil {
		return "", fmt.Errorf("no expression")
	}
	sel := &pg.SelectStmt{TargetList: []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: e}}}}}
	out, err := pg.Deparse(&pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}}}})
	if err != nil {
		return "", fmt.Errorf("deparse: %w", err)
	}
	s, ok := strings.CutPrefix(out, "SELECT ")
	if !ok {
		return "", fmt.Errorf("deparse: unexpected %q", out)
	}
	return s, nil
}

// replaceValue returns a copy of a domain CHECK's expression with VALUE
// replaced by a reference to column col.
func replaceValue(e *pg.Node, col string) *pg.Node {
	if e == nil {
		return nil
	}
	c := proto.Clone(e).(*pg.Node)
	walkMessages(c.ProtoReflect(), func(m protoreflect.Message) {
		cr, ok := m.Interface().(*pg.ColumnRef)
		if !ok || len(cr.Fields) != 1 {
			return
		}
		if s := cr.Fields[0].GetString_(); s != nil && strings.EqualFold(s.Sval, "value") {
			cr.Fields = []*pg.Node{pg.MakeStrNode(col)}
		}
	})
	return c
}

// walkMessages calls f on m and every message below it.
func walkMessages(m protoreflect.Message, f func(protoreflect.Message)) {
	if !m.IsValid() {
		return
	}
	f(m)
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				walkMessages(l.Get(i).Message(), f)
			}
		case fd.Message() != nil && !fd.IsMap():
			walkMessages(v.Message(), f)
		}
		return true
	})
}

// quoteIdentIfNeeded writes a column name as PostgreSQL reads it back.
func quoteIdentIfNeeded(s string) string {
	ok := s != ""
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			ok = false
		}
	}
	if ok {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
