package plan

import (
	"fmt"
	"slices"
	"strings"
)

// SpellingChoice is an operator that returns one of several spellings a
// nondeterministic collation (NOCASE, RTRIM, an ICU one) calls equal:
// DISTINCT, GROUP BY, UNION, INTERSECT and EXCEPT keep one row of each
// group of equal rows, MIN and MAX one of equal values. Which one is the
// engine's choice, and it follows the engine's plan and version:
// SQLite's DISTINCT keeps the first row it meets, the self-UNION of
// SQLite 3.40 the last, and the join order it picks decides which is
// first. Two queries that differ only in such
// an operator, or in what lies below one, can return 'a' against 'A' on
// the same database.
type SpellingChoice struct {
	// Key renders the operator and everything below it: two choices
	// with one key are the same subquery, which an engine runs alike.
	Key string
	// Subject names the columns whose spelling is chosen, with their
	// collation ("t.name (NOCASE)").
	Subject string
}

// SpellingChoices lists the operators of the plan rooted at root, in
// subqueries too, that choose a spelling: those that group rows on a
// column under a nondeterministic collation and whose input may hold
// two rows the group would merge (no key within the grouped columns),
// and MIN or MAX over such a column, as an aggregate or a window
// function. Read it on a plan as built, before
// normalization reorders what the engine would see.
func SpellingChoices(m *Metadata, root *Node) []SpellingChoice {
	s := spellings{m: m}
	s.visit(root)
	return s.out
}

type spellings struct {
	m        *Metadata
	d        *Deriver // made on first use: most plans merge no such column
	out      []SpellingChoice
	rendered int // bytes of keys rendered so far (maxSpellingKeyBytes)
}

func (s *spellings) visit(n *Node) {
	for _, in := range n.Inputs {
		s.visit(in)
	}
	n.Exprs(func(e **Expr) {
		Walk(*e, func(x *Expr) {
			if x.Kind == Subquery && x.Sub != nil {
				s.visit(x.Sub)
			}
		})
	})
	var loose []ColumnID
	switch n.Op {
	case OpDistinct:
		loose = s.looseUnkeyed(n.Inputs[0], n.OutCols())
	case OpAggregate:
		loose = s.looseUnkeyed(n.Inputs[0], n.GroupBy)
		for _, a := range n.Aggs {
			if a.Expr.Kind == Agg && (a.Expr.Name == "min" || a.Expr.Name == "max") {
				loose = append(loose, s.looseArgs(a.Expr)...)
			}
		}
	case OpWindow:
		for _, it := range n.Proj {
			if it.Expr.Kind == WinFunc && (it.Expr.Name == "min" || it.Expr.Name == "max") {
				loose = append(loose, s.looseArgs(it.Expr)...)
			}
		}
	case OpSetOp:
		if n.All {
			break
		}
		// Equal rows of two branches are merged even when each branch
		// is free of duplicates.
		for i, c := range n.Cols {
			if s.m.LooseCol(c) || slices.ContainsFunc(n.SetCols, func(cs []ColumnID) bool { return i < len(cs) && s.m.LooseCol(cs[i]) }) {
				loose = append(loose, c)
			}
		}
	}
	if len(loose) == 0 {
		return
	}
	// The qualified form numbers the occurrences of a table (t1, t2) in
	// the order the operator reads them; the anonymous one writes both
	// as the table, so a self-join read the other way round would render
	// alike.
	key := fmt.Sprintf("unrendered %p", n) // equal to no other plan's key
	if s.rendered < maxSpellingKeyBytes {
		key = NewFormatter(s.m, n, false).Node(n)
		s.rendered += len(key)
	}
	s.out = append(s.out, SpellingChoice{Key: key, Subject: s.subject(loose)})
}

// maxSpellingKeyBytes bounds the text SpellingChoices renders for one
// plan: nested merges (a chain of UNIONs) each render the whole subtree
// below them, which grows with the square of the chain. Past the bound a
// choice's key matches nothing, which costs a proof its outright label,
// never its soundness.
const maxSpellingKeyBytes = 1 << 20

// looseArgs returns the columns under a nondeterministic collation that
// MIN or MAX call e reads: it returns one of the spellings they tie.
func (s *spellings) looseArgs(e *Expr) []ColumnID {
	var loose []ColumnID
	for _, a := range e.Args {
		Walk(a, func(x *Expr) {
			if x.Kind == ColRef && s.m.LooseCol(x.Col) {
				loose = append(loose, x.Col)
			}
		})
	}
	return loose
}

// looseUnkeyed returns the columns of cols under a nondeterministic
// collation, unless in keeps no two rows that agree on cols (then there
// is nothing to choose between).
func (s *spellings) looseUnkeyed(in *Node, cols []ColumnID) []ColumnID {
	var loose []ColumnID
	for _, c := range cols {
		if s.m.LooseCol(c) {
			loose = append(loose, c)
		}
	}
	if len(loose) == 0 {
		return nil
	}
	if s.d == nil {
		s.d = NewDeriver(s.m)
	}
	if s.d.Derive(in).HasKeyWithin(MakeColSet(cols...)) {
		return nil
	}
	return loose
}

// subject names cols as table.column (or the column's name) with the
// collation.
func (s *spellings) subject(cols []ColumnID) string {
	parts := make([]string, 0, len(cols))
	for _, c := range cols {
		name := qualifiedName(s.m, c)
		if coll, _ := s.m.Collation(c); coll != "" {
			name += " (" + coll + ")"
		}
		if !slices.Contains(parts, name) {
			parts = append(parts, name)
		}
	}
	return strings.Join(parts, ", ")
}

// SameSpellingChoices reports whether a and b choose spellings alike:
// the same operators over the same subqueries, as many times each.
func SameSpellingChoices(a, b []SpellingChoice) bool {
	return sameKeyBags(a, b, func(c SpellingChoice) string { return c.Key })
}
