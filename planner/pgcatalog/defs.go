package pgcatalog

import (
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// constraintDef is pg_get_constraintdef(oid [, pretty]) in PostgreSQL's
// spelling: PRIMARY KEY (a, b), UNIQUE (a), FOREIGN KEY (a) REFERENCES
// t(b), CHECK ((expr)) (CHECK (expr) when pretty). A check's expression
// is the DDL's text, not PostgreSQL's deparsed form.
func (d *Data) constraintDef(a []exec.Value) (exec.Value, error) {
	oid, ok := oidArg(a, 0)
	if !ok {
		return null, nil
	}
	c, ok := d.conByOID[oid]
	if !ok {
		return null, nil
	}
	t := c.table.table
	cols := quotedCols(t.Columns, c.cols)
	switch c.kind {
	case 'p':
		return s("PRIMARY KEY (" + cols + ")"), nil
	case 'u':
		return s("UNIQUE (" + cols + ")"), nil
	case 'f':
		if c.ref == nil {
			return null, nil
		}
		return s("FOREIGN KEY (" + cols + ") REFERENCES " + quoteName(c.ref.table.Name) + "(" +
			quotedCols(c.ref.table.Columns, c.refCols) + ")"), nil
	}
	if p := arg(a, 1); p.K == exec.KBool && p.B {
		return s("CHECK (" + c.check + ")"), nil
	}
	return s("CHECK ((" + c.check + "))"), nil
}

// indexDef is pg_get_indexdef(oid [, column, pretty]).
func (d *Data) indexDef(a []exec.Value) (exec.Value, error) {
	oid, ok := oidArg(a, 0)
	if !ok {
		return null, nil
	}
	ix, ok := d.idxByOID[oid]
	if !ok {
		return null, nil
	}
	t := ix.table.table
	var elems, bare []string
	for k, c := range ix.cols {
		if c >= 0 && c < len(t.Columns) {
			elems = append(elems, quoteName(t.Columns[c].Name))
			bare = append(bare, quoteName(t.Columns[c].Name))
		} else if k < len(ix.exprs) {
			elems = append(elems, "("+ix.exprs[k]+")")
			bare = append(bare, ix.exprs[k])
		}
	}
	// pg_get_indexdef(index, column, pretty) with column > 0 is that
	// key column alone (pgjdbc's getIndexInfo reads it); past the last,
	// the empty string, as PostgreSQL answers.
	if len(a) > 1 && arg(a, 1).K == exec.KInt && arg(a, 1).I != 0 {
		k := int(arg(a, 1).I)
		if k < 1 || k > len(bare) {
			return s(""), nil
		}
		return s(bare[k-1]), nil
	}
	def := "CREATE UNIQUE INDEX " + quoteName(ix.name) + " ON public." + quoteName(t.Name) + " USING btree (" + strings.Join(elems, ", ") + ")"
	if ix.where != "" {
		def += " WHERE (" + ix.where + ")"
	}
	return s(def), nil
}

func quotedCols(cols []catalog.Column, ords []int) string {
	var names []string
	for _, o := range ords {
		if o >= 0 && o < len(cols) {
			names = append(names, quoteName(cols[o].Name))
		}
	}
	return strings.Join(names, ", ")
}
