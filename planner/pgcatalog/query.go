package pgcatalog

import (
	"context"
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pgequiv/pgequiv/internal/pgtypes"
	"github.com/pgequiv/pgequiv/planner/build"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Catalog is the system catalog of one loaded schema as seen by one
// connection (its user owns everything; its database is the only one).
type Catalog struct {
	data    *Data
	sys     *catalog.Schema
	colOIDs map[string]uint32
	ext     *build.Extension
	funcs   map[string]exec.Func
}

// New builds the system tables for schema s, user and database.
func New(s *catalog.Schema, user, database string) (*Catalog, error) {
	sys, colOIDs, err := systemSchema()
	if err != nil {
		return nil, err
	}
	d := newData(s, user, database)
	c := &Catalog{data: d, sys: sys, colOIDs: colOIDs, funcs: map[string]exec.Func{},
		ext: &build.Extension{Funcs: map[string]catalog.Type{}, Ops: regexOps, Casts: casts, IgnoreCollate: true}}
	for name, f := range registry {
		fn := f.fn
		c.ext.Funcs[name] = f.typ
		c.funcs[name] = func(args []exec.Value) (exec.Value, error) { return fn(d, args) }
	}
	return c, nil
}

// Column is one result column: its name and type as a RowDescription
// gives them.
type Column struct {
	Name string
	OID  uint32
	Size int16
}

// Result is a query's answer: values in PostgreSQL's text form, nil for
// NULL.
type Result struct {
	Columns []Column
	Rows    [][]*string
}

// Reads reports whether sql is one SELECT over the system catalog: every
// relation it reads is a pg_catalog or information_schema table this
// package holds, or it reads none and calls a registry function. Such a
// query is answered by Query and never judged.
func Reads(sql string) bool {
	tree, err := pg.Parse(sql)
	if err != nil || len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetSelectStmt() == nil {
		return false
	}
	rels, system, calls := 0, true, false
	ctes := map[string]bool{}
	walk(tree.Stmts[0].Stmt.ProtoReflect(), func(m proto.Message) {
		switch n := m.(type) {
		case *pg.CommonTableExpr:
			ctes[n.Ctename] = true
		case *pg.RangeVar:
			rels++
			if ctes[n.Relname] && n.Schemaname == "" {
				return
			}
			sch := systemSchemaOf(n.Relname)
			if sch == "" || n.Schemaname != "" && n.Schemaname != sch || n.Catalogname != "" {
				system = false
			}
		case *pg.FuncCall:
			name := n.Funcname[len(n.Funcname)-1].GetString_().GetSval()
			if _, ok := registry[strings.ToLower(name)]; ok {
				calls = true
			}
		}
	})
	if rels == 0 {
		return calls
	}
	return system
}

// walk calls f on every message in m's tree.
func walk(m protoreflect.Message, f func(proto.Message)) {
	f(m.Interface())
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for k := 0; k < l.Len(); k++ {
				walk(l.Get(k).Message(), f)
			}
		case fd.Message() != nil && !fd.IsMap():
			walk(v.Message(), f)
		}
		return true
	})
}

// Query plans sql over the system tables and executes it.
func (c *Catalog) Query(ctx context.Context, sql string) (*Result, error) {
	return c.QueryParams(ctx, sql, nil)
}

// QueryParams is Query with $n bound to params[n-1] (text form, nil for
// NULL), as an extended-protocol Bind supplies them.
func (c *Catalog) QueryParams(ctx context.Context, sql string, params []*string) (*Result, error) {
	sql, err := rewrite(sql, params)
	if err != nil {
		return nil, err
	}
	p, err := build.BuildContext(ctx, c.sys, sql, build.Options{Ext: c.ext})
	if err != nil {
		return nil, fmt.Errorf("pgcatalog: %w", err)
	}
	r, err := exec.ExecuteWith(ctx, p, c.data.db, exec.Options{Funcs: c.funcs})
	if err != nil {
		return nil, fmt.Errorf("pgcatalog: %w", err)
	}
	out := &Result{}
	ids := p.Root.OutCols()
	for k, id := range ids {
		oid := c.outOID(p, id)
		name := "?column?"
		if k < len(p.Names) && p.Names[k] != "" {
			name = p.Names[k]
		}
		size := int16(-1)
		if t, ok := typeByOID[oid]; ok && t.len > 0 {
			size = int16(t.len)
		}
		out.Columns = append(out.Columns, Column{Name: name, OID: oid, Size: size})
	}
	for _, row := range r.Rows {
		vals := make([]*string, len(row))
		for k, v := range row {
			if v.IsNull() {
				continue
			}
			t := v.String()
			if v.K == exec.KBool {
				t = map[bool]string{true: "t", false: "f"}[v.B]
			}
			vals[k] = &t
		}
		out.Rows = append(out.Rows, vals)
	}
	return out, nil
}

// outOID is the type OID of an output column: a system table column's
// own, else by the planner's family.
func (c *Catalog) outOID(p *plan.Plan, id plan.ColumnID) uint32 {
	m := p.Meta.Col(id)
	if m.Instance >= 0 && m.Instance < len(p.Meta.Instances) {
		if t := p.Meta.Instances[m.Instance].Table; t != nil && m.Ordinal < len(t.Columns) {
			if oid, ok := c.colOIDs[t.Name+"."+t.Columns[m.Ordinal].Name]; ok {
				return oid
			}
		}
	}
	switch m.Type {
	case catalog.Int:
		return pgtypes.Int8
	case catalog.Bool:
		return pgtypes.Bool
	case catalog.Float:
		return pgtypes.Float8
	case catalog.Numeric:
		return pgtypes.Numeric
	case catalog.JSON:
		return 114
	case catalog.Timestamp:
		return 1184
	}
	return pgtypes.Text
}
