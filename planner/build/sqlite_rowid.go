package build

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// SQLite's rowid (issue 33, item 13): every table but a WITHOUT ROWID one
// has a 64-bit integer key, read as rowid, oid or _rowid_ where no column
// has the name. Unqualified, it is the rowid of the query's only table;
// with several, SQLite finds no such column. A lone column declared
// exactly INTEGER PRIMARY KEY is the rowid's alias, so the name reads
// that column. Without one, the rowid is a hidden column the catalog
// does not describe and the engine numbers as it inserts: not modelled
// (unsupported, never "invalid"). So are the rowids of views and
// subqueries (SQLite 3.40 reads them as NULL) and of CTEs.

// isRowidName reports whether name is one of SQLite's names of the rowid.
func isRowidName(name string) bool {
	switch strings.ToLower(name) {
	case "rowid", "oid", "_rowid_":
		return true
	}
	return false
}

// noteSQLiteNonBase records the names of the FROM items that are no
// base table: subqueries, CTE references and views.
func (b *builder) noteSQLiteNonBase(from []*pg.Node, sc *scope) {
	if b.schema.Dialect != catalog.SQLite {
		return
	}
	note := func(name string) {
		if b.sqliteNonBase == nil {
			b.sqliteNonBase = map[string]bool{}
		}
		b.sqliteNonBase[strings.ToLower(name)] = true
	}
	var walk func(n *pg.Node)
	walk = func(n *pg.Node) {
		switch {
		case n.GetRangeVar() != nil:
			rv := n.GetRangeVar()
			name := rv.Relname
			if rv.Alias != nil {
				name = rv.Alias.Aliasname
			}
			t := b.schema.Table(rv.Relname)
			if sc.lookupCTE(b, rv.Relname) != nil || t == nil || t.IsView() {
				note(name)
			}
		case n.GetRangeSubselect() != nil:
			name := "" // SQLite lets a subquery go unnamed
			if a := n.GetRangeSubselect().Alias; a != nil {
				name = a.Aliasname
			}
			note(name)
		case n.GetJoinExpr() != nil:
			j := n.GetJoinExpr()
			if j.Alias != nil {
				note(j.Alias.Aliasname)
			}
			walk(j.Larg)
			walk(j.Rarg)
		}
	}
	for _, n := range from {
		walk(n)
	}
}

// sqliteRowid resolves qual.name at scope level s, which has no column
// of the name, as SQLite's rowid: ok with the rowid alias's column, an
// unsupported error where the rowid is not modelled, neither where
// SQLite finds no rowid there either (a WITHOUT ROWID table, no table of
// that name).
func (b *builder) sqliteRowid(s, sc *scope, qual, name string, loc int32) (*plan.Expr, bool, error) {
	if b.schema.Dialect != catalog.SQLite || !isRowidName(name) {
		return nil, false, nil
	}
	var quals []string
	for _, c := range s.cols {
		if (qual == "" || b.nameEq(c.qual, qual)) && !hasName(b, quals, c.qual) {
			quals = append(quals, c.qual)
		}
	}
	switch {
	case len(quals) == 0:
		return nil, false, nil
	case len(quals) > 1:
		return nil, false, b.unsupported(loc, "an unqualified rowid over several tables")
	case b.sqliteNonBase[strings.ToLower(quals[0])]:
		return nil, false, b.unsupported(loc, "the rowid of a subquery, view or CTE")
	}
	// The item's columns must be one scan of one table, all its columns.
	var cols []scopeCol
	for _, c := range s.cols {
		if b.nameEq(c.qual, quals[0]) {
			cols = append(cols, c)
		}
	}
	inst := b.meta.Col(cols[0].id).Instance
	if inst < 0 || inst >= len(b.meta.Instances) {
		return nil, false, b.unsupported(loc, "the rowid of a FROM item that is no table")
	}
	t := b.meta.Instances[inst].Table
	if t == nil || t.IsView() || len(cols) != len(t.Columns) || !b.nameEq(b.meta.Instances[inst].Alias, quals[0]) {
		return nil, false, b.unsupported(loc, "the rowid of a FROM item that is no table")
	}
	for _, c := range cols {
		if b.meta.Col(c.id).Instance != inst {
			return nil, false, b.unsupported(loc, "the rowid of a FROM item that is no table")
		}
	}
	if t.WithoutRowID {
		return nil, false, nil // SQLite: no such column
	}
	if len(t.PrimaryKey) == 1 {
		pk := t.PrimaryKey[0]
		// Exactly INTEGER, and integers only (IntegerOnly knows the
		// declarations that make no alias).
		if strings.EqualFold(strings.TrimSpace(t.Columns[pk].TypeSQL), "integer") && t.IntegerOnly(catalog.SQLite, pk) {
			for _, c := range cols {
				if b.meta.Col(c.id).Ordinal == pk {
					if s != sc {
						sc.correlated = true
					}
					e := plan.NewCol(c.id, c.typ)
					e.Pos = loc
					return e, true, nil
				}
			}
		}
	}
	return nil, false, b.unsupported(loc, "the rowid of a table without INTEGER PRIMARY KEY")
}

func hasName(b *builder, names []string, n string) bool {
	for _, x := range names {
		if b.nameEq(x, n) {
			return true
		}
	}
	return false
}
