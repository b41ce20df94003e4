package catalog

import (
	"fmt"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// LoadDDL builds a schema from PostgreSQL DDL: CREATE TABLE (with column
// and table constraints), CREATE [UNIQUE] INDEX and CREATE VIEW. Other
// statements (INSERT, COMMENT, SET, ...) are ignored because they do not
// change what a query means.
func LoadDDL(ddl string, d Dialect) (*Schema, error) {
	tree, err := pg.Parse(ddl)
	if err != nil {
		return nil, fmt.Errorf("catalog: parse DDL: %w", err)
	}
	b := &ddlBuilder{d: d, byName: map[string]*Table{}}
	for _, raw := range tree.Stmts {
		switch st := raw.Stmt.Node.(type) {
		case *pg.Node_CreateStmt:
			if err := b.createTable(st.CreateStmt); err != nil {
				return nil, err
			}
		case *pg.Node_ViewStmt:
			if err := b.createView(st.ViewStmt); err != nil {
				return nil, err
			}
		case *pg.Node_IndexStmt:
			if err := b.createIndex(st.IndexStmt); err != nil {
				return nil, err
			}
		}
	}
	if err := b.resolveForeignKeys(); err != nil {
		return nil, err
	}
	return NewSchema(d, b.tables)
}

type pendingFK struct {
	table   *Table
	cols    []int
	refName string
	refCols []string
	loc     int32
}

type ddlBuilder struct {
	d      Dialect
	tables []*Table
	byName map[string]*Table
	fks    []pendingFK
}

func (b *ddlBuilder) norm(name string) string {
	if b.d == SQLite {
		return lower(name)
	}
	return name
}

func lower(s string) string {
	out := []byte(s)
	for i, c := range out {
		if c >= 'A' && c <= 'Z' {
			out[i] = c + 32
		}
	}
	return string(out)
}

func (b *ddlBuilder) add(t *Table) error {
	k := b.norm(t.Name)
	if _, dup := b.byName[k]; dup {
		return fmt.Errorf("catalog: table %q declared twice", t.Name)
	}
	b.byName[k] = t
	b.tables = append(b.tables, t)
	return nil
}

func (t *Table) ordinal(name string, d Dialect) int {
	for i, c := range t.Columns {
		if c.Name == name || (d == SQLite && lower(c.Name) == lower(name)) {
			return i
		}
	}
	return -1
}

func (b *ddlBuilder) ordinals(t *Table, names []*pg.Node, what string, loc int32) ([]int, error) {
	out := make([]int, 0, len(names))
	for _, n := range names {
		name := n.GetString_().GetSval()
		o := t.ordinal(name, b.d)
		if o < 0 {
			return nil, fmt.Errorf("catalog: table %s: %s names unknown column %q at position %d", t.Name, what, name, loc+1)
		}
		out = append(out, o)
	}
	return out, nil
}

func typeName(tn *pg.TypeName) string {
	if tn == nil || len(tn.Names) == 0 {
		return ""
	}
	// pg_catalog.int4 and friends: the last name is the type.
	return tn.Names[len(tn.Names)-1].GetString_().GetSval()
}

// typeMods writes a type's declared widths as "(p)" or "(p,s)"; empty
// when it has none (or any is not an integer). The refuter reads them
// from TypeSQL so that a counterexample's values fit the columns: a
// 3-character value in a char(1) column is no database PostgreSQL holds.
func typeMods(tn *pg.TypeName) string {
	if tn == nil || len(tn.Typmods) == 0 {
		return ""
	}
	mods := make([]string, len(tn.Typmods))
	for i, n := range tn.Typmods {
		iv := n.GetAConst().GetIval()
		if iv == nil {
			return ""
		}
		mods[i] = strconv.Itoa(int(iv.Ival))
	}
	return "(" + strings.Join(mods, ",") + ")"
}

// constraint is what the catalog keeps of a column or table constraint.
type constraint struct {
	kind    pg.ConstrType
	keys    []*pg.Node // PRIMARY KEY / UNIQUE columns
	fkAttrs []*pg.Node // FOREIGN KEY columns
	pkTable string
	pkAttrs []*pg.Node
	loc     int32
}

func fromPG(c *pg.Constraint) constraint {
	return constraint{kind: c.Contype, keys: c.Keys, fkAttrs: c.FkAttrs, pkTable: c.Pktable.GetRelname(), pkAttrs: c.PkAttrs, loc: c.Location}
}

func (b *ddlBuilder) createTable(cs *pg.CreateStmt) error {
	t := &Table{Name: cs.Relation.GetRelname()}
	var cons []constraint
	for _, elt := range cs.TableElts {
		switch e := elt.Node.(type) {
		case *pg.Node_ColumnDef:
			cd := e.ColumnDef
			tn := typeName(cd.TypeName)
			col := Column{Name: cd.Colname, TypeSQL: tn + typeMods(cd.TypeName), Type: TypeFromName(tn), NotNull: cd.IsNotNull, Ordinal: len(t.Columns)}
			t.Columns = append(t.Columns, col)
			for _, cn := range cd.Constraints {
				pc := cn.GetConstraint()
				if pc == nil {
					continue
				}
				// Column constraints name their column implicitly.
				c := fromPG(pc)
				self := []*pg.Node{pg.MakeStrNode(cd.Colname)}
				switch c.kind {
				case pg.ConstrType_CONSTR_PRIMARY, pg.ConstrType_CONSTR_UNIQUE:
					c.keys = self
				case pg.ConstrType_CONSTR_FOREIGN:
					c.fkAttrs = self
				case pg.ConstrType_CONSTR_NOTNULL:
					t.Columns[col.Ordinal].NotNull = true
					continue
				default:
					continue
				}
				cons = append(cons, c)
			}
		case *pg.Node_Constraint:
			cons = append(cons, fromPG(e.Constraint))
		}
	}
	for _, n := range cs.Constraints {
		if c := n.GetConstraint(); c != nil {
			cons = append(cons, fromPG(c))
		}
	}
	for _, c := range cons {
		switch c.kind {
		case pg.ConstrType_CONSTR_PRIMARY:
			if t.PrimaryKey != nil {
				return fmt.Errorf("catalog: table %s: more than one primary key at position %d", t.Name, c.loc+1)
			}
			ords, err := b.ordinals(t, c.keys, "PRIMARY KEY", c.loc)
			if err != nil {
				return err
			}
			t.PrimaryKey = ords
			for _, o := range ords {
				t.Columns[o].NotNull = true
			}
		case pg.ConstrType_CONSTR_UNIQUE:
			ords, err := b.ordinals(t, c.keys, "UNIQUE", c.loc)
			if err != nil {
				return err
			}
			t.Unique = append(t.Unique, ords)
		case pg.ConstrType_CONSTR_FOREIGN:
			ords, err := b.ordinals(t, c.fkAttrs, "FOREIGN KEY", c.loc)
			if err != nil {
				return err
			}
			var refCols []string
			for _, n := range c.pkAttrs {
				refCols = append(refCols, n.GetString_().GetSval())
			}
			b.fks = append(b.fks, pendingFK{table: t, cols: ords, refName: c.pkTable, refCols: refCols, loc: c.loc})
		}
	}
	return b.add(t)
}

func (b *ddlBuilder) createIndex(is *pg.IndexStmt) error {
	if !is.Unique || is.WhereClause != nil {
		return nil // only plain unique indexes make keys
	}
	t := b.byName[b.norm(is.Relation.GetRelname())]
	if t == nil {
		return fmt.Errorf("catalog: CREATE UNIQUE INDEX on unknown table %q", is.Relation.GetRelname())
	}
	var ords []int
	for _, p := range is.IndexParams {
		el := p.GetIndexElem()
		if el == nil || el.Name == "" {
			return nil // expression index: no column key
		}
		o := t.ordinal(el.Name, b.d)
		if o < 0 {
			return fmt.Errorf("catalog: unique index on %s names unknown column %q", t.Name, el.Name)
		}
		ords = append(ords, o)
	}
	t.Unique = append(t.Unique, ords)
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
	return b.add(t)
}

func (b *ddlBuilder) resolveForeignKeys() error {
	for _, fk := range b.fks {
		ref := b.byName[b.norm(fk.refName)]
		if ref == nil {
			return fmt.Errorf("catalog: table %s: foreign key at position %d references unknown table %q", fk.table.Name, fk.loc+1, fk.refName)
		}
		var refOrds []int
		if len(fk.refCols) == 0 {
			refOrds = ref.PrimaryKey
			if refOrds == nil {
				return fmt.Errorf("catalog: table %s: foreign key references %s, which has no primary key", fk.table.Name, ref.Name)
			}
		} else {
			for _, n := range fk.refCols {
				o := ref.ordinal(n, b.d)
				if o < 0 {
					return fmt.Errorf("catalog: table %s: foreign key references unknown column %s.%s", fk.table.Name, ref.Name, n)
				}
				refOrds = append(refOrds, o)
			}
		}
		if len(refOrds) != len(fk.cols) {
			return fmt.Errorf("catalog: table %s: foreign key has %d columns but references %d", fk.table.Name, len(fk.cols), len(refOrds))
		}
		fk.table.ForeignKeys = append(fk.table.ForeignKeys, ForeignKey{Columns: fk.cols, RefTable: ref.Name, RefColumns: refOrds})
	}
	return nil
}
