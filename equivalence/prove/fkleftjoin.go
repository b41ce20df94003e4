package prove

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// fkLeftJoin returns n as an inner join when it is a left join along a
// foreign key from NOT NULL columns to the key of a scanned table.
func (p *prover) fkLeftJoin(n *plan.Node, m *plan.Metadata) *plan.Node {
	if n.Op != plan.OpJoin || n.Join != plan.LeftJoin || len(n.Preds) == 0 || n.Inputs[1].Op != plan.OpScan || n.Inputs[1].Table == nil {
		return nil
	}
	right := n.Inputs[1]
	rightOrd := map[plan.ColumnID]int{}
	for i, c := range right.Cols {
		rightOrd[c] = i
	}
	nulls := p.nullA
	if m == p.b.Meta {
		nulls = p.nullB
	}
	leftCols := n.Inputs[0].OutColSet()
	inst := -1
	pairs := map[int]int{} // child ordinal -> parent ordinal
	for _, e := range n.Preds {
		if !e.IsOp(plan.OpEq) || len(e.Args) != 2 || e.Args[0].Kind != plan.ColRef || e.Args[1].Kind != plan.ColRef {
			return nil
		}
		l, r := e.Args[0].Col, e.Args[1].Col
		if _, ok := rightOrd[l]; ok {
			l, r = r, l
		}
		ro, ok := rightOrd[r]
		if !ok || !leftCols.Has(l) || nulls.Has(l) {
			return nil
		}
		meta := m.Col(l)
		if meta.Instance < 0 || !meta.NotNull || (inst >= 0 && meta.Instance != inst) {
			return nil
		}
		inst = meta.Instance
		pairs[meta.Ordinal] = ro
	}
	if inst < 0 || inst >= len(m.Instances) || m.Instances[inst].Table == nil {
		return nil
	}
	child := m.Instances[inst].Table
	for _, fk := range child.ForeignKeys {
		if !fkBindsPairs(fk, right.Table, pairs) {
			continue
		}
		subj := ""
		for k, c := range fk.Columns {
			if k > 0 {
				subj += ", "
			}
			subj += child.Name + "." + child.Columns[c].Name + " references " + right.Table.Name + "." + right.Table.Columns[fk.RefColumns[k]].Name
		}
		if !p.opts.TrustForeignKeys {
			p.assume(Assumption{Kind: AssumeForeignKey, Subject: subj})
		}
		p.ruleOn(ruleFKLeftJoinInner, "%s", subj)
		j := *n
		j.Join = plan.InnerJoin
		return &j
	}
	return nil
}

// fkBindsPairs says fk references a key of right and its columns are
// exactly those of pairs (child ordinal to parent ordinal).
func fkBindsPairs(fk catalog.ForeignKey, right *catalog.Table, pairs map[int]int) bool {
	if fk.RefTable != right.Name || len(fk.Columns) != len(pairs) || !referencesKey(right, fk.RefColumns) {
		return false
	}
	for k, c := range fk.Columns {
		if ro, ok := pairs[c]; !ok || ro != fk.RefColumns[k] {
			return false
		}
	}
	return true
}

// referencesKey says whether cols are the table's primary key or one of
// its unique keys, as a set.
func referencesKey(t *catalog.Table, cols []int) bool {
	same := func(k []int) bool {
		if len(k) != len(cols) {
			return false
		}
		for _, c := range k {
			found := false
			for _, d := range cols {
				if c == d {
					found = true
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
	if len(t.PrimaryKey) > 0 && same(t.PrimaryKey) {
		return true
	}
	for _, u := range t.Unique {
		if same(u) {
			return true
		}
	}
	return false
}
