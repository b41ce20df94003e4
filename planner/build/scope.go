package build

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// relation is a built query or FROM item: a node with named output
// columns.
type relation struct {
	node    *plan.Node
	cols    []plan.ColumnID
	names   []string
	ordered bool
}

// scopeCol is one column visible to name resolution.
type scopeCol struct {
	qual   string // table alias or name qualifying it
	name   string
	id     plan.ColumnID
	typ    catalog.Type
	hidden bool // merged away by USING: visible only when qualified
}

type cte struct {
	def     *pg.CommonTableExpr
	visible *scope // CTEs defined before it (for inlining in its own context)
}

type scope struct {
	cols   []scopeCol
	parent *scope
	ctes   map[string]*cte
	// correlated records that an expression referenced a parent scope.
	correlated bool
	// aliases are output columns that unresolved names may refer to
	// (SQLite only).
	aliases []target
}

func (b *builder) nameKey(s string) string {
	if b.schema.Dialect == catalog.SQLite {
		return strings.ToLower(s)
	}
	return s
}

func (sc *scope) lookupCTE(b *builder, name string) *cte {
	for s := sc; s != nil; s = s.parent {
		if c, ok := s.ctes[b.nameKey(name)]; ok {
			return c
		}
	}
	return nil
}

func (b *builder) nameEq(a, c string) bool { return b.schema.NameEqual(a, c) }

func (b *builder) newColumn(name string, t catalog.Type) plan.ColumnID {
	return b.meta.AddColumn(plan.ColumnMeta{Name: name, Type: t, Instance: -1, Ordinal: -1})
}

// defineColumn is newColumn for a column computed as def.
func (b *builder) defineColumn(name string, def *plan.Expr) plan.ColumnID {
	id := b.newColumn(name, def.Typ)
	if b.colDefs == nil {
		b.colDefs = map[plan.ColumnID]*plan.Expr{}
	}
	b.colDefs[id] = def
	return id
}

func (b *builder) typeOf(id plan.ColumnID) catalog.Type { return b.meta.Col(id).Type }
