package build

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// A table with children (INHERITS, or the partitions of a partitioned
// table) is read, as PostgreSQL reads it, with its children's rows: the
// scan expands to the table's own rows UNION ALL each child's, projected
// to the parent's columns, recursively. FROM ONLY reads the table's own
// rows. A partitioned table has no rows of its own. The expansion is
// ordinary plan, so the prover and the executor need nothing new, and a
// key holds per table only, as in the engine: the union has none.

// maxInheritDepth bounds inheritance chains; a catalog built by hand
// could have a cycle.
const maxInheritDepth = 16

// tableScan returns the plan that reads t (with its children unless
// only) and its output columns in t's column order. alias names the
// instance of t's own scan.
func (b *builder) tableScan(t *catalog.Table, alias string, only bool, depth int, pos int32) (*plan.Node, []plan.ColumnID, error) {
	var children []*catalog.Table
	if !only {
		children = b.schema.Children(t)
	}
	if len(children) == 0 && !t.Partitioned {
		n, err := b.ownScan(t, alias)
		if err != nil {
			return nil, nil, err
		}
		return n, n.Cols, nil
	}
	if depth > maxInheritDepth {
		return nil, nil, b.errf(pos, "table %q inherits too deeply (a cycle?)", t.Name)
	}
	var inputs []*plan.Node
	var inCols [][]plan.ColumnID
	if !t.Partitioned {
		n, err := b.ownScan(t, alias)
		if err != nil {
			return nil, nil, err
		}
		inputs, inCols = append(inputs, n), append(inCols, n.Cols)
	}
	for _, c := range children {
		n, cols, err := b.tableScan(c, c.Name, false, depth+1, pos)
		if err != nil {
			return nil, nil, err
		}
		// A child has each of its parent's columns, by name, maybe at
		// another position.
		p := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{n}}
		var out []plan.ColumnID
		for _, pc := range t.Columns {
			o := -1
			for i, cc := range c.Columns {
				if b.nameEq(cc.Name, pc.Name) {
					o = i
					break
				}
			}
			if o < 0 {
				return nil, nil, b.errf(pos, "table %q inherits from %q but lacks its column %q", c.Name, t.Name, pc.Name)
			}
			id := b.newColumn(pc.Name, pc.Type)
			p.Proj = append(p.Proj, plan.ProjItem{ID: id, Expr: plan.NewCol(cols[o], c.Columns[o].Type)})
			out = append(out, id)
		}
		inputs, inCols = append(inputs, p), append(inCols, out)
	}
	if len(inputs) == 0 {
		// A partitioned table without partitions, or ONLY a partitioned
		// table: no rows.
		n, err := b.ownScan(t, alias)
		if err != nil {
			return nil, nil, err
		}
		return &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{n}, Preds: []*plan.Expr{plan.NewBool(false)}}, n.Cols, nil
	}
	if len(inputs) == 1 {
		return inputs[0], inCols[0], nil
	}
	u := &plan.Node{Op: plan.OpSetOp, Set: plan.Union, All: true, Inputs: inputs, SetCols: inCols}
	for _, pc := range t.Columns {
		u.Cols = append(u.Cols, b.newColumn(pc.Name, pc.Type))
	}
	return u, u.Cols, nil
}

// ownScan reads t's own rows.
func (b *builder) ownScan(t *catalog.Table, alias string) (*plan.Node, error) {
	if err := b.spend(1 + len(t.Columns)); err != nil {
		return nil, err
	}
	inst := len(b.meta.Instances)
	n := &plan.Node{Op: plan.OpScan, Table: t, Instance: inst}
	for i, c := range t.Columns {
		id := b.meta.AddColumn(plan.ColumnMeta{Name: c.Name, Type: c.Type, Instance: inst, Ordinal: i, NotNull: c.NotNull})
		n.Cols = append(n.Cols, id)
	}
	b.meta.Instances = append(b.meta.Instances, plan.TableInstance{Table: t, Alias: alias, Cols: n.Cols})
	return n, nil
}
