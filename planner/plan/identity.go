package plan

import (
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// What = compares on a column or expression, and whether two values it
// calls equal are the same value (catalog.IdentityEqual). Every rule that
// substitutes one side of an equality for the other, merges equal
// columns into a class or reads two equalities with unequal constants as
// a contradiction asks IdentityEq first.

// Domain is the EqDomain of column c: a table column's declaration, a
// computed column's recorded Dom, or else its family alone.
func (m *Metadata) Domain(c ColumnID) catalog.EqDomain {
	if m == nil || c < 0 || int(c) >= len(m.Columns) {
		return catalog.EqDomain{Mod: -1}
	}
	meta := &m.Columns[c]
	if meta.Instance >= 0 && meta.Instance < len(m.Instances) {
		if t := m.Instances[meta.Instance].Table; t != nil && meta.Ordinal >= 0 && meta.Ordinal < len(t.Columns) {
			return catalog.ColumnDomainIn(&t.Columns[meta.Ordinal], m.Dialect)
		}
	}
	if meta.Dom != nil {
		return *meta.Dom
	}
	return catalog.EqDomain{Type: meta.Type, Mod: -1}
}

// ExprDomain is the EqDomain of e's values. A computed text value read
// from a column under a nondeterministic collation keeps that collation
// (PostgreSQL derives an expression's collation from its inputs), so it
// is nondeterministic too.
func (m *Metadata) ExprDomain(e *Expr) catalog.EqDomain {
	switch e.Kind {
	case ColRef:
		return m.Domain(e.Col)
	case Const:
		if e.Null {
			return catalog.EqDomain{Type: e.Typ, Mod: -1}
		}
		return catalog.LiteralDomain(e.Typ, e.Value)
	case Agg:
		switch e.Name {
		case "min", "max", "any_value":
			if len(e.Args) == 1 && e.Filter == nil {
				return m.ExprDomain(e.Args[0])
			}
		}
	case Subquery:
		if e.SubKind == SubScalar && e.Sub != nil {
			if out := e.Sub.OutCols(); len(out) == 1 {
				return m.Domain(out[0])
			}
		}
	case Cast:
		d := catalog.EqDomain{Type: e.Typ, Mod: -1}
		if e.Value != "" {
			d = catalog.ColumnDomain(&catalog.Column{Type: e.Typ, TypeSQL: e.Value})
		}
		d.Nondeterministic = d.Nondeterministic || e.Typ == catalog.Text && m.readsLoose(e)
		return d
	}
	return catalog.EqDomain{Type: e.Typ, Mod: -1, Nondeterministic: e.Typ == catalog.Text && m.readsLoose(e)}
}

// readsLoose says whether e reads a column whose = is nondeterministic
// (a subquery's value is its output's, not its own columns').
func (m *Metadata) readsLoose(e *Expr) bool {
	found := false
	Walk(e, func(x *Expr) {
		if !found && x.Kind == ColRef && m.LooseCol(x.Col) {
			found = true
		}
	})
	return found
}

// LooseCol is Domain(c).Nondeterministic without parsing a declared
// type.
func (m *Metadata) LooseCol(c ColumnID) bool {
	_, nondet := m.Collation(c)
	return nondet
}

// Collation is column c's collation and whether it is nondeterministic
// (Domain's Collation and Nondeterministic), cheaply: the prover asks for
// every comparison it reads.
func (m *Metadata) Collation(c ColumnID) (string, bool) {
	if m == nil || c < 0 || int(c) >= len(m.Columns) {
		return "", false
	}
	meta := &m.Columns[c]
	if meta.Instance >= 0 && meta.Instance < len(m.Instances) {
		if t := m.Instances[meta.Instance].Table; t != nil && meta.Ordinal >= 0 && meta.Ordinal < len(t.Columns) {
			col := &t.Columns[meta.Ordinal]
			if col.Collation == "" && !col.Nondeterministic && !spellsCollate(col.TypeSQL) {
				return "", false
			}
			d := catalog.ColumnDomainIn(col, m.Dialect)
			return d.Collation, d.Nondeterministic
		}
	}
	if meta.Dom != nil {
		return meta.Dom.Collation, meta.Dom.Nondeterministic
	}
	return "", false
}

// IdentityEq says a = b is identity on their values: catalog.IdentityEqual
// on their domains.
func (m *Metadata) IdentityEq(a, b *Expr) bool {
	return catalog.IdentityEqual(m.ExprDomain(a), m.ExprDomain(b))
}

// ColIdentityEq is IdentityEq for two columns.
func (m *Metadata) ColIdentityEq(a, b ColumnID) bool {
	return catalog.IdentityEqual(m.Domain(a), m.Domain(b))
}

// AnnotateDomains records the domain of every computed column of root
// and of its subqueries in its Dom: a projection's or window's item and
// an aggregate's call get their expression's domain (min, max and
// any_value their argument's), a set operation's or VALUES column the
// domain all its inputs agree on, else a Mixed one. The builder calls it
// once a plan is built; a rule that adds a column sets Dom itself.
func AnnotateDomains(root *Node, m *Metadata) {
	if root == nil || m == nil {
		return
	}
	for _, in := range root.Inputs {
		AnnotateDomains(in, m)
	}
	root.Exprs(func(s **Expr) {
		Walk(*s, func(x *Expr) {
			if x.Kind == Subquery && x.Sub != nil {
				AnnotateDomains(x.Sub, m)
			}
		})
	})
	set := func(c ColumnID, d catalog.EqDomain) {
		if c < 0 || int(c) >= len(m.Columns) || m.Columns[c].Instance >= 0 {
			return
		}
		m.Columns[c].Dom = &d
	}
	switch root.Op {
	case OpProject, OpWindow:
		for _, it := range root.Proj {
			if it.Expr.Kind == ColRef && it.Expr.Col == it.ID {
				continue
			}
			set(it.ID, m.ExprDomain(it.Expr))
		}
	case OpAggregate:
		for _, it := range root.Aggs {
			set(it.ID, m.ExprDomain(it.Expr))
		}
	case OpSetOp:
		for i, c := range root.Cols {
			var ds []catalog.EqDomain
			for _, in := range root.SetCols {
				if i < len(in) {
					ds = append(ds, m.Domain(in[i]))
				}
			}
			set(c, agree(m.Col(c).Type, ds))
		}
	case OpValues:
		for i, c := range root.Cols {
			var ds []catalog.EqDomain
			for _, r := range root.Rows {
				if i < len(r) {
					ds = append(ds, m.ExprDomain(r[i]))
				}
			}
			set(c, agree(m.Col(c).Type, ds))
		}
	}
}

// agree is the one domain of ds, or a Mixed one of family t.
func agree(t catalog.Type, ds []catalog.EqDomain) catalog.EqDomain {
	for _, d := range ds {
		if d != ds[0] {
			return catalog.EqDomain{Type: t, Mod: -1, Mixed: true}
		}
	}
	if len(ds) == 0 {
		return catalog.EqDomain{Type: t, Mod: -1}
	}
	return ds[0]
}

// KeyEq says a = b is one equivalence relation under which a key of
// either side is unique, so that a key names at most one row through it:
// values of one kind (catalog.EqualsAlike), compared under no
// nondeterministic collation or under the same one on both sides. A
// comparison under NOCASE against a column unique only byte for byte
// meets both 'a' and 'A'.
func (m *Metadata) KeyEq(a, b *Expr) bool {
	if !catalog.EqualsAlike(a.Typ, b.Typ) {
		return false
	}
	da, db := m.ExprDomain(a), m.ExprDomain(b)
	if !da.Nondeterministic && !db.Nondeterministic {
		return true
	}
	return da.Nondeterministic && db.Nondeterministic && da.Collation != "" && strings.EqualFold(da.Collation, db.Collation)
}

// spellsCollate says whether a declared type carries a COLLATE clause,
// without allocating.
func spellsCollate(t string) bool {
	for i := 0; i+7 <= len(t); i++ {
		if strings.EqualFold(t[i:i+7], "collate") {
			return true
		}
	}
	return false
}
