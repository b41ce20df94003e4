package catalog

import (
	"fmt"
	"slices"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// createIndex reads CREATE [UNIQUE] INDEX: a plain total unique index on
// columns is a key; one on expressions or with WHERE is a UniqueIndex.
func (b *ddlBuilder) createIndex(is *pg.IndexStmt) error {
	if !is.Unique {
		return nil
	}
	ts := b.lookup(is.Relation)
	if ts == nil {
		if b.matviews[b.norm(is.Relation.GetRelname())] {
			return nil
		}
		return fmt.Errorf("catalog: CREATE UNIQUE INDEX on unknown table %q", is.Relation.GetRelname())
	}
	t := ts.t
	plain := is.WhereClause == nil
	var cols []string
	for _, p := range is.IndexParams {
		el := p.GetIndexElem()
		if el == nil {
			continue
		}
		if el.Name == "" {
			plain = false
			continue
		}
		o := t.ordinal(el.Name, b.d)
		if o < 0 {
			return fmt.Errorf("catalog: unique index on %s names unknown column %q", t.Name, el.Name)
		}
		cols = append(cols, t.Columns[o].Name)
	}
	if is.NullsNotDistinct {
		b.note(ts, "UNIQUE INDEX "+is.Idxname+" NULLS NOT DISTINCT", "two NULLs conflict under it, which the catalog cannot say")
	}
	name := is.Idxname
	if name == "" {
		name = fmt.Sprintf("%s_idx%d", t.Name, len(ts.keys)+len(ts.uidx))
	}
	b.indexes[name] = ts
	if plain {
		ts.keys = append(ts.keys, keyDef{name: name, cols: cols, index: true, deferrable: is.Deferrable || is.Initdeferred})
	} else {
		ts.uidx = append(ts.uidx, uidxDef{name: name, elems: is.IndexParams, where: is.WhereClause})
	}
	return nil
}

func (b *ddlBuilder) createView(vs *pg.ViewStmt) error {
	q, err := pg.Deparse(&pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: vs.Query}}})
	if err != nil {
		return fmt.Errorf("catalog: view %s: %w", vs.View.GetRelname(), err)
	}
	t := &Table{Name: vs.View.GetRelname(), ViewSQL: q}
	for _, a := range vs.Aliases {
		t.ViewColumns = append(t.ViewColumns, a.GetString_().GetSval())
	}
	k := b.norm(t.Name)
	if _, dup := b.byName[k]; dup {
		return fmt.Errorf("catalog: table %q declared twice", t.Name)
	}
	for _, v := range b.views {
		if b.norm(v.Name) == k {
			if vs.Replace {
				// CREATE OR REPLACE may add columns at the end: views
				// over this one keep the columns they had.
				b.freezeViews(map[string]bool{k: true}, "CREATE OR REPLACE VIEW "+t.Name)
				for j, w := range b.views {
					if b.norm(w.Name) == k {
						b.views[j] = t
					}
				}
				delete(b.frozen, k)
				return nil
			}
			return fmt.Errorf("catalog: table %q declared twice", t.Name)
		}
	}
	b.views = append(b.views, t)
	return nil
}

// finish turns the tables' states into Tables: types resolved, keys and
// foreign keys by ordinal, expressions written as SQL.
func (b *ddlBuilder) finish() ([]*Table, error) {
	var out []*Table
	for _, ts := range b.tables {
		t := ts.t
		domainChecks := b.resolveTypes(ts)
		ords := func(names []string) ([]int, bool) {
			o := make([]int, len(names))
			for i, n := range names {
				if o[i] = t.ordinal(n, b.d); o[i] < 0 {
					return nil, false
				}
			}
			return o, true
		}
		for _, k := range ts.keys {
			o, ok := ords(k.cols)
			if !ok {
				continue
			}
			switch {
			case k.deferrable:
				if !containsSet(t.DeferrableKeys, o) {
					t.DeferrableKeys = append(t.DeferrableKeys, o)
				}
			case k.primary && t.PrimaryKey == nil && b.d == SQLite:
				sqlitePrimaryKey(t, o)
			case k.primary && t.PrimaryKey == nil:
				t.PrimaryKey = o
			case !containsSet(t.Unique, o):
				t.Unique = append(t.Unique, o)
			}
		}
		for _, ck := range append(append([]checkDef(nil), ts.checks...), domainChecks...) {
			if ck.notValid {
				continue
			}
			sql, err := deparseExpr(ck.expr)
			if err != nil {
				b.noteAt(ts, 0, "CHECK "+ck.name, "its expression cannot be read: "+err.Error())
				continue
			}
			if !slices.ContainsFunc(t.Checks, func(c Check) bool { return c.Expr == sql }) {
				t.Checks = append(t.Checks, Check{Name: ck.name, Expr: sql})
			}
		}
		for _, u := range ts.uidx {
			ui := UniqueIndex{Name: u.name}
			for _, p := range u.elems {
				el := p.GetIndexElem()
				if el.Name != "" {
					ui.Exprs = append(ui.Exprs, el.Name)
					ui.Columns = append(ui.Columns, t.ordinal(el.Name, b.d))
					continue
				}
				sql, err := deparseExpr(el.Expr)
				if err != nil {
					b.noteAt(ts, 0, "UNIQUE INDEX "+u.name, "its expression cannot be read")
					continue
				}
				ui.Exprs = append(ui.Exprs, sql)
				ui.Columns = append(ui.Columns, -1)
			}
			if u.where != nil {
				sql, err := deparseExpr(u.where)
				if err != nil {
					b.noteAt(ts, 0, "UNIQUE INDEX "+u.name, "its predicate cannot be read")
					continue
				}
				ui.Where = sql
			}
			t.UniqueIndexes = append(t.UniqueIndexes, ui)
		}
		if t.Partitioned {
			// Rows written to a partitioned table go to its partitions: it
			// holds none of its own, which a generator must honour.
			t.Checks = append(t.Checks, Check{Name: t.Name + " is partitioned: no rows of its own", Expr: "false"})
		}
		// A partition's rows satisfy its bound and its ancestors': a
		// CHECK like any other, which a generator must honour too.
		seen := map[string]bool{}
		for a := ts; a != nil && !seen[a.t.Name]; {
			seen[a.t.Name] = true
			if a.t.PartitionBound != "" {
				t.Checks = append(t.Checks, Check{Name: a.t.Name + " partition bound", Expr: a.t.PartitionBound})
			}
			var up *tableState
			if a.bound != nil && len(a.t.Inherits) == 1 {
				up = b.byName[b.norm(a.t.Inherits[0])]
			}
			a = up
		}
		t.Unmodelled = append(t.Unmodelled, ts.unmodelled...)
		out = append(out, t)
	}
	for _, ts := range b.tables {
		for _, fk := range ts.fks {
			if err := b.resolveForeignKey(ts.t, fk); err != nil {
				return nil, err
			}
		}
	}
	return append(out, b.views...), nil
}

func containsSet(sets [][]int, s []int) bool {
	return slices.ContainsFunc(sets, func(x []int) bool { return slices.Equal(x, s) })
}

func (b *ddlBuilder) resolveForeignKey(t *Table, fk fkDef) error {
	refState := b.byName[b.norm(fk.ref)]
	if refState == nil {
		return fmt.Errorf("catalog: table %s: foreign key at position %d references unknown table %q", t.Name, fk.loc+1, fk.ref)
	}
	ref := refState.t
	var refOrds []int
	if len(fk.refCols) == 0 {
		refOrds = ref.PrimaryKey
		if refOrds == nil {
			return fmt.Errorf("catalog: table %s: foreign key references %s, which has no primary key", t.Name, ref.Name)
		}
	} else {
		for _, n := range fk.refCols {
			o := ref.ordinal(n, b.d)
			if o < 0 {
				return fmt.Errorf("catalog: table %s: foreign key references unknown column %s.%s", t.Name, ref.Name, n)
			}
			refOrds = append(refOrds, o)
		}
	}
	if len(refOrds) != len(fk.cols) {
		return fmt.Errorf("catalog: table %s: foreign key has %d columns but references %d", t.Name, len(fk.cols), len(refOrds))
	}
	cols := make([]int, len(fk.cols))
	for i, n := range fk.cols {
		if cols[i] = t.ordinal(n, b.d); cols[i] < 0 {
			return nil
		}
	}
	f := ForeignKey{Columns: cols, RefTable: ref.Name, RefColumns: refOrds}
	list := &t.ForeignKeys
	if fk.deferrable {
		list = &t.DeferrableForeignKeys
	}
	for _, x := range *list {
		if slices.Equal(x.Columns, f.Columns) && x.RefTable == f.RefTable && slices.Equal(x.RefColumns, f.RefColumns) {
			return nil
		}
	}
	*list = append(*list, f)
	return nil
}
