package plan

import (
	"strconv"
)

// Formatter renders plans and expressions as text. The canonical form
// names table instances t1, t2, ... in order of first appearance and
// writes computed columns as their defining expressions, so it does not
// depend on column IDs, aliases or output names.
type Formatter struct {
	meta *Metadata
	// Anonymous drops instance numbers (dogs.name instead of t1.name).
	// Normalization sorts commutative operands by this form, which does
	// not depend on the order instances were numbered in.
	Anonymous bool
	defs      map[ColumnID]*Expr
	labels    map[ColumnID]string
	inst      map[int]int
	next      int
	// Columns of aggregates, window nodes, set operations and VALUES lists
	// are named by definition or position, which two such nodes can share
	// (count(*) of two aggregates). producer numbers those nodes in
	// collection order; qual holds the number for each column whose name
	// another node's column shares, and Col appends it as #n.
	producer map[*Node]int
	produced []ColumnID
	from     map[ColumnID]int
	qual     map[ColumnID]int
	// seen marks nodes already collected, so shared or nested subqueries
	// are visited once.
	seen map[*Node]bool
	// text memoizes Col: a computed column is rendered from its
	// definition once. Instances are numbered on first appearance, so a
	// second rendering would give the same text anyway. rendering marks
	// columns whose definition is being rendered, to stop at a cyclic
	// definition instead of recursing forever.
	text      map[ColumnID]string
	rendering map[ColumnID]bool
	// nullExt marks computed columns defined under the null-extended side
	// of an outer join by a definition that is not NULL when its inputs
	// are (a constant, coalesce, ...). Above the join such a column reads
	// NULL on unmatched rows, so its definition alone does not name its
	// value: it is written nullext(def), qualified by its Project when
	// another one shares the text.
	nullExt map[ColumnID]bool
	// aliases selects the human form: instances are named by the query's
	// aliases (see NewAliasFormatter); aliasOf holds those names and
	// present the instances the plan scans.
	aliases bool
	aliasOf map[int]string
	present map[int]bool
}

// NewFormatter prepares a formatter for plans over meta; root supplies
// the definitions of computed columns.
func NewFormatter(meta *Metadata, root *Node, anonymous bool) *Formatter {
	f := &Formatter{meta: meta, Anonymous: anonymous, defs: map[ColumnID]*Expr{}, labels: map[ColumnID]string{}, inst: map[int]int{},
		producer: map[*Node]int{}, from: map[ColumnID]int{}, seen: map[*Node]bool{}}
	f.collect(root)
	f.seen = nil
	if !anonymous {
		f.qualifyShared()
	}
	return f
}

// NewAliasFormatter prepares a formatter for people: a table instance is
// named by its alias in the query (the table's name when it has none),
// and instances that share a name are told apart as name#1, name#2 in
// the order the query introduces them, so the two sides of a self-join
// stay distinguishable. The text depends on alias spelling; fingerprints
// and comparisons must use NewFormatter's forms.
func NewAliasFormatter(meta *Metadata, root *Node) *Formatter {
	f := &Formatter{meta: meta, aliases: true, defs: map[ColumnID]*Expr{}, labels: map[ColumnID]string{}, inst: map[int]int{},
		producer: map[*Node]int{}, from: map[ColumnID]int{}, seen: map[*Node]bool{}, present: map[int]bool{}}
	f.collect(root)
	f.seen = nil
	f.qualifyShared()
	f.nameInstances()
	return f
}

// nameInstances gives each scanned instance its alias, numbered where
// scanned instances share one.
func (f *Formatter) nameInstances() {
	count := map[string]int{}
	for i := range f.meta.Instances {
		if f.present[i] {
			count[f.aliasName(i)]++
		}
	}
	seen := map[string]int{}
	f.aliasOf = map[int]string{}
	for i := range f.meta.Instances {
		if !f.present[i] {
			continue
		}
		a := f.aliasName(i)
		if count[a] > 1 {
			seen[a]++
			f.aliasOf[i] = a + "#" + strconv.Itoa(seen[a])
			continue
		}
		f.aliasOf[i] = a
	}
}

func (f *Formatter) aliasName(i int) string {
	if a := f.meta.Instances[i].Alias; a != "" {
		return quoteIdent(a)
	}
	return quoteIdent(f.meta.Instances[i].Table.Name)
}

// produce records that x makes column c, whose name may be shared.
// Only qualifyShared reads the record, and an anonymous formatter never
// qualifies: the normalizer builds one after every rule firing that may
// change a definition, and the record was a third of its cost.
func (f *Formatter) produce(x *Node, c ColumnID) {
	if f.Anonymous {
		return
	}
	if _, done := f.from[c]; done {
		return
	}
	k, ok := f.producer[x]
	if !ok {
		k = len(f.producer) + 1
		f.producer[x] = k
	}
	f.from[c] = k
	f.produced = append(f.produced, c)
}

// qualifyShared finds produced columns whose names, rendered with one
// numbering of instances, coincide with a column of another node.
func (f *Formatter) qualifyShared() {
	scratch := &Formatter{meta: f.meta, defs: f.defs, labels: f.labels, inst: map[int]int{}, nullExt: f.nullExt}
	byName := map[string][]ColumnID{}
	var names []string
	for _, c := range f.produced {
		n := scratch.Col(c)
		if _, ok := byName[n]; !ok {
			names = append(names, n)
		}
		byName[n] = append(byName[n], c)
	}
	for _, n := range names {
		cols := byName[n]
		shared := false
		for _, c := range cols[1:] {
			if f.from[c] != f.from[cols[0]] {
				shared = true
			}
		}
		if !shared {
			continue
		}
		if f.qual == nil {
			f.qual = map[ColumnID]int{}
		}
		for _, c := range cols {
			f.qual[c] = f.from[c]
		}
	}
}

// collect records computed-column definitions of the whole plan,
// including those inside subqueries.
func (f *Formatter) collect(n *Node) {
	if n == nil {
		return
	}
	n.WalkNodes(func(x *Node) {
		if f.seen[x] {
			return
		}
		f.seen[x] = true
		if x.Op == OpScan && f.present != nil {
			f.present[x.Instance] = true
		}
		// Only computed columns have definitions: a base column keeps its
		// name even where a projection carries an equal column in its place
		// (join equivalence), since the two values are the same.
		for _, p := range x.Proj {
			if int(p.ID) < len(f.meta.Columns) && f.meta.Columns[p.ID].Instance < 0 && !(p.Expr.Kind == ColRef && p.Expr.Col == p.ID) {
				f.defs[p.ID] = p.Expr
				if x.Op == OpWindow {
					f.produce(x, p.ID)
				}
			}
		}
		for _, a := range x.Aggs {
			f.defs[a.ID] = a.Expr
			f.produce(x, a.ID)
		}
		if x.Op == OpJoin {
			for i, in := range x.Inputs {
				if x.Join == FullJoin || x.Join == LeftJoin && i == 1 || x.Join == RightJoin && i == 0 {
					f.markNullExtended(in)
				}
			}
		}
		if x.Op == OpSetOp || x.Op == OpValues {
			for i, c := range x.Cols {
				f.labels[c] = x.Op.String() + ".c" + strconv.Itoa(i+1)
				f.produce(x, c)
			}
		}
		// Walk, not WalkDeep: collect enters each subquery itself.
		x.Exprs(func(s **Expr) {
			Walk(*s, func(e *Expr) {
				if e.Kind == Subquery {
					f.collect(e.Sub)
				}
			})
		})
	})
}

// markNullExtended records the non-strict computed columns that the
// Projects of n (a null-extended join input) define.
func (f *Formatter) markNullExtended(n *Node) {
	n.WalkNodes(func(x *Node) {
		if x.Op != OpProject {
			return
		}
		in := x.Inputs[0].OutColSet()
		for _, p := range x.Proj {
			if int(p.ID) >= len(f.meta.Columns) || f.meta.Columns[p.ID].Instance >= 0 || p.Expr.Kind == ColRef && p.Expr.Col == p.ID {
				continue
			}
			if StrictCols(p.Expr).Intersects(in) {
				continue
			}
			if f.nullExt == nil {
				f.nullExt = map[ColumnID]bool{}
			}
			f.nullExt[p.ID] = true
			f.produce(x, p.ID)
		}
	})
}

func (f *Formatter) instName(i int) string {
	t := f.meta.Instances[i].Table.Name
	if f.Anonymous {
		return t
	}
	if f.aliases {
		if a, ok := f.aliasOf[i]; ok {
			return a
		}
		return f.aliasName(i)
	}
	k, ok := f.inst[i]
	if !ok {
		f.next++
		k = f.next
		f.inst[i] = k
	}
	return "t" + strconv.Itoa(k)
}

// Col renders a column reference.
func (f *Formatter) Col(id ColumnID) string {
	if d, ok := f.defs[id]; ok {
		if t, ok := f.text[id]; ok {
			return t
		}
		if f.rendering[id] {
			// A definition that reaches itself is a bug in a rewrite;
			// say so in the text rather than overflow the stack.
			return "?cycle#" + strconv.Itoa(int(id))
		}
		if f.rendering == nil {
			f.rendering, f.text = map[ColumnID]bool{}, map[ColumnID]string{}
		}
		f.rendering[id] = true
		t := f.Expr(d)
		if f.nullExt[id] {
			t = "nullext(" + t + ")"
		}
		t += f.qualSuffix(id)
		delete(f.rendering, id)
		f.text[id] = t
		return t
	}
	if l, ok := f.labels[id]; ok {
		return l + f.qualSuffix(id)
	}
	if int(id) < 0 || int(id) >= len(f.meta.Columns) {
		return "?col" + strconv.Itoa(int(id))
	}
	if t, ok := f.text[id]; ok {
		return t
	}
	m := f.meta.Columns[id]
	var t string
	if m.Instance >= 0 {
		t = f.instName(m.Instance) + "." + quoteIdent(m.Name)
	} else {
		t = "col." + quoteIdent(m.Name)
	}
	if f.text == nil {
		f.text = map[ColumnID]string{}
	}
	f.text[id] = t
	return t
}

func (f *Formatter) qualSuffix(id ColumnID) string {
	if q, ok := f.qual[id]; ok {
		return "#" + strconv.Itoa(q)
	}
	return ""
}

func quoteIdent(s string) string {
	for _, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return strconv.Quote(s)
		}
	}
	return s
}
