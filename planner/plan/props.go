package plan

import "github.com/pgequiv/pgequiv/planner/catalog"

// Props are logical properties of a node's output, derived from the
// schema's constraints and the operators below.
type Props struct {
	// NotNull holds output columns that can never be NULL.
	NotNull ColSet
	// Keys are sets of output columns no two output rows agree on
	// (NULLs compared as equal, as DISTINCT does). An empty key means the
	// node returns at most one row.
	Keys []ColSet
	// Equiv are classes of output columns known equal in every row.
	Equiv []ColSet
}

// AtMostOneRow reports whether the node returns at most one row.
func (p *Props) AtMostOneRow() bool {
	for _, k := range p.Keys {
		if k.Empty() {
			return true
		}
	}
	return false
}

// HasKeyWithin reports whether some key lies within cols.
func (p *Props) HasKeyWithin(cols ColSet) bool {
	for _, k := range p.Keys {
		if k.SubsetOf(cols) {
			return true
		}
	}
	return false
}

// EquivOf returns the class of c, or {c}.
func (p *Props) EquivOf(c ColumnID) ColSet {
	for _, e := range p.Equiv {
		if e.Has(c) {
			return e
		}
	}
	return MakeColSet(c)
}

// clone returns a deep copy, so a derivation can extend its input's
// properties without changing a memoized value.
func (p *Props) clone() *Props {
	c := &Props{NotNull: p.NotNull.Copy()}
	if p.Keys != nil {
		c.Keys = make([]ColSet, len(p.Keys))
		for i, k := range p.Keys {
			c.Keys[i] = k.Copy()
		}
	}
	if p.Equiv != nil {
		c.Equiv = make([]ColSet, len(p.Equiv))
		for i, e := range p.Equiv {
			c.Equiv[i] = e.Copy()
		}
	}
	return c
}

// Derive computes the properties of n. Each call walks the subtree once;
// callers that ask about many nodes of one unchanging plan use a Deriver.
func Derive(n *Node, m *Metadata) *Props {
	return (&Deriver{meta: m}).derive(n)
}

// Deriver derives properties with a memo per node, so asking about every
// node of a plan costs one walk rather than one per node. The memo is
// keyed by node identity and knows nothing of later edits: a Deriver is
// valid only while the plan below the nodes it was asked about does not
// change. Call Reset after any rewrite (rewrites mutate nodes in place).
type Deriver struct {
	meta *Metadata
	memo map[*Node]*Props
	// computed counts derive calls; a test reads it to check that each
	// node is computed once.
	computed int
}

// NewDeriver returns a memoizing Deriver over plans with metadata m.
func NewDeriver(m *Metadata) *Deriver {
	return &Deriver{meta: m, memo: map[*Node]*Props{}}
}

// Reset forgets every memoized property.
func (d *Deriver) Reset() {
	if d.memo != nil {
		clear(d.memo)
	}
}

// Derive returns the properties of n; the caller may modify them.
func (d *Deriver) Derive(n *Node) *Props {
	if d.memo == nil {
		return d.derive(n)
	}
	if p, ok := d.memo[n]; ok {
		return p.clone()
	}
	p := d.derive(n)
	d.memo[n] = p
	return p.clone()
}

// derive computes n's properties from its inputs', which it obtains
// through d.Derive: fresh values it may extend.
func (d *Deriver) derive(n *Node) *Props {
	d.computed++
	switch n.Op {
	case OpScan:
		return deriveScan(n)
	case OpFilter:
		p := d.Derive(n.Inputs[0])
		applyPreds(p, n.Preds, d.meta)
		return p
	case OpProject:
		return deriveProject(n, d.Derive(n.Inputs[0]))
	case OpJoin:
		return d.deriveJoin(n)
	case OpAggregate:
		return deriveAggregate(n, d.Derive(n.Inputs[0]))
	case OpDistinct:
		p := d.Derive(n.Inputs[0])
		p.Keys = append(p.Keys, n.OutColSet())
		return p
	case OpSort, OpWindow:
		p := d.Derive(n.Inputs[0])
		return p
	case OpLimit:
		p := d.Derive(n.Inputs[0])
		if n.Limit != nil && n.Limit.Kind == Const && (n.Limit.Value == "1" || n.Limit.Value == "0") {
			p.Keys = append(p.Keys, ColSet{})
		}
		return p
	case OpSetOp:
		return deriveSetOp(n, d.Derive(n.Inputs[0]), d.Derive(n.Inputs[1]))
	case OpValues:
		return deriveValues(n)
	}
	return &Props{}
}

// deriveScan: a table's NOT NULL columns and its keys.
func deriveScan(n *Node) *Props {
	p := &Props{}
	for i, c := range n.Cols {
		if n.Table.Columns[i].NotNull {
			p.NotNull.Add(c)
		}
	}
	for _, k := range n.Table.Keys() {
		var s ColSet
		for _, o := range k {
			s.Add(n.Cols[o])
		}
		p.Keys = append(p.Keys, s)
	}
	return p
}

// deriveProject carries the input's properties (in) over to the output
// columns that pass input columns through; non-null literals are not
// NULL either.
func deriveProject(n *Node, in *Props) *Props {
	p := &Props{}
	for _, it := range n.Proj {
		if it.Expr.Kind == ColRef && in.NotNull.Has(it.Expr.Col) || it.Expr.Kind == Const && !it.Expr.Null {
			p.NotNull.Add(it.ID)
		}
	}
	// Map input columns to the output IDs that carry them.
	carried := map[ColumnID]ColumnID{}
	for _, it := range n.Proj {
		if it.Expr.Kind == ColRef {
			if _, ok := carried[it.Expr.Col]; !ok || it.ID == it.Expr.Col {
				carried[it.Expr.Col] = it.ID
			}
		}
	}
	for _, k := range in.Keys {
		var nk ColSet
		ok := true
		for _, c := range k.Ordered() {
			o, has := carried[c]
			if !has {
				// An equal column may be carried instead.
				for _, e := range in.EquivOf(c).Ordered() {
					if oo, h := carried[e]; h {
						o, has = oo, true
						break
					}
				}
			}
			if !has {
				ok = false
				break
			}
			nk.Add(o)
		}
		if ok {
			p.Keys = append(p.Keys, nk)
		}
	}
	for _, e := range in.Equiv {
		var ne ColSet
		for _, c := range e.Ordered() {
			if o, has := carried[c]; has {
				ne.Add(o)
			}
		}
		if ne.Len() > 1 {
			p.Equiv = append(p.Equiv, ne)
		}
	}
	return p
}

// deriveAggregate: the grouping columns are a key, keep their NOT NULL
// and equivalences from the input (in), and count() is never NULL.
func deriveAggregate(n *Node, in *Props) *Props {
	p := &Props{}
	group := MakeColSet(n.GroupBy...)
	for _, c := range n.GroupBy {
		if in.NotNull.Has(c) {
			p.NotNull.Add(c)
		}
	}
	for _, a := range n.Aggs {
		if a.Expr.Name == "count" {
			p.NotNull.Add(a.ID)
		}
	}
	p.Keys = append(p.Keys, group)
	for _, e := range in.Equiv {
		var ne ColSet
		for _, c := range e.Ordered() {
			if group.Has(c) {
				ne.Add(c)
			}
		}
		if ne.Len() > 1 {
			p.Equiv = append(p.Equiv, ne)
		}
	}
	return p
}

// deriveSetOp: an output column is NOT NULL where the operation's rows
// come from inputs (l, r) whose column is; without ALL the whole row is
// a key.
func deriveSetOp(n *Node, l, r *Props) *Props {
	p := &Props{}
	for i, c := range n.Cols {
		lc, rc := n.SetCols[0][i], n.SetCols[1][i]
		switch n.Set {
		case Union:
			if l.NotNull.Has(lc) && r.NotNull.Has(rc) {
				p.NotNull.Add(c)
			}
		case Intersect:
			if l.NotNull.Has(lc) || r.NotNull.Has(rc) {
				p.NotNull.Add(c)
			}
		case Except:
			if l.NotNull.Has(lc) {
				p.NotNull.Add(c)
			}
		}
	}
	if !n.All {
		p.Keys = append(p.Keys, MakeColSet(n.Cols...))
	}
	return p
}

// deriveValues: at most one row has the empty key, and a column of
// non-null literals only is NOT NULL.
func deriveValues(n *Node) *Props {
	p := &Props{}
	if len(n.Rows) <= 1 {
		p.Keys = append(p.Keys, ColSet{})
	}
	for i, c := range n.Cols {
		nn := true
		for _, r := range n.Rows {
			if !(r[i].Kind == Const && !r[i].Null) {
				nn = false
			}
		}
		if nn {
			p.NotNull.Add(c)
		}
	}
	return p
}

// applyPreds adds what conjuncts guarantee: columns they reject NULLs of,
// and equalities between columns.
func applyPreds(p *Props, preds []*Expr, m *Metadata) {
	for _, c := range preds {
		for _, col := range NullRejected(c).Ordered() {
			p.NotNull.Add(col)
		}
		if a, b, ok := ColEquality(c, m); ok {
			p.addEquiv(a, b)
		}
	}
}

// ColEquality matches a = b between two columns of the same type on
// which = is identity (Metadata.ColIdentityEq): the columns are then one
// value on every row that satisfies it, and either may stand for the
// other. m nil checks the types alone.
func ColEquality(e *Expr, m *Metadata) (ColumnID, ColumnID, bool) {
	if e.IsOp(OpEq) && e.Args[0].Kind == ColRef && e.Args[1].Kind == ColRef && e.Args[0].Typ == e.Args[1].Typ && e.Args[0].Col != e.Args[1].Col &&
		(m == nil || m.ColIdentityEq(e.Args[0].Col, e.Args[1].Col)) {
		return e.Args[0].Col, e.Args[1].Col, true
	}
	return 0, 0, false
}

func (p *Props) addEquiv(a, b ColumnID) {
	var ia, ib = -1, -1
	for i, e := range p.Equiv {
		if e.Has(a) {
			ia = i
		}
		if e.Has(b) {
			ib = i
		}
	}
	switch {
	case ia < 0 && ib < 0:
		p.Equiv = append(p.Equiv, MakeColSet(a, b))
	case ia >= 0 && ib < 0:
		p.Equiv[ia].Add(b)
	case ia < 0 && ib >= 0:
		p.Equiv[ib].Add(a)
	case ia != ib:
		p.Equiv[ia] = p.Equiv[ia].Union(p.Equiv[ib])
		p.Equiv = append(p.Equiv[:ib], p.Equiv[ib+1:]...)
	}
}

// strictOps yield NULL whenever an argument is NULL.
var strictOps = map[string]bool{OpEq: true, OpNe: true, OpLt: true, OpLe: true, OpGt: true, OpGe: true,
	OpLike: true, OpILike: true, OpNotLike: true, OpNotILike: true, OpAdd: true, OpSub: true, OpMul: true,
	OpDiv: true, OpMod: true, OpConcat: true, OpNeg: true,
	OpSimilar: true, OpBitAnd: true, OpBitOr: true, OpBitXor: true, OpBitNot: true, OpIRegex: true,
	OpJSONField: true, OpJSONText: true, OpContains: true, OpContainedBy: true, OpSubscript: true,
	OpJSONExists: true}

// strictCols returns columns whose NULL makes e NULL.
func strictCols(e *Expr) ColSet {
	switch {
	case e.Kind == ColRef:
		return MakeColSet(e.Col)
	case e.Kind == Cast:
		return strictCols(e.Args[0])
	case e.Kind == Op && strictOps[e.Name]:
		var s ColSet
		for _, a := range e.Args {
			s.UnionWith(strictCols(a))
		}
		return s
	}
	return ColSet{}
}

// StrictCols returns the columns whose NULL makes e NULL.
func StrictCols(e *Expr) ColSet { return strictCols(e) }

// NullRejected returns the columns a predicate rejects NULLs of: if any of
// them is NULL the predicate is not true.
func NullRejected(e *Expr) ColSet {
	switch {
	case e.IsOp(OpAnd):
		var s ColSet
		for _, a := range e.Args {
			s.UnionWith(NullRejected(a))
		}
		return s
	case e.IsOp(OpOr):
		s := NullRejected(e.Args[0])
		for _, a := range e.Args[1:] {
			o := NullRejected(a)
			var both ColSet
			for _, c := range s.Ordered() {
				if o.Has(c) {
					both.Add(c)
				}
			}
			s = both
		}
		return s
	case e.IsOp(OpIsNotNull):
		return strictCols(e.Args[0])
	case e.Kind == Op && strictOps[e.Name] && e.Typ == catalog.Bool:
		return strictCols(e)
	case e.Kind == Subquery && (e.SubKind == SubAny) && !e.Args[0].Null:
		var s ColSet
		for _, a := range e.Args {
			s.UnionWith(strictCols(a))
		}
		return s
	}
	return ColSet{}
}

func (d *Deriver) deriveJoin(n *Node) *Props {
	ins := make([]*Props, len(n.Inputs))
	for i, in := range n.Inputs {
		ins[i] = d.Derive(in)
	}
	switch n.Join {
	case SemiJoin, AntiJoin:
		return ins[0]
	case InnerJoin:
		p := &Props{}
		for _, ip := range ins {
			p.NotNull.UnionWith(ip.NotNull)
			for _, e := range ip.Equiv {
				p.Equiv = append(p.Equiv, e.Copy())
			}
		}
		applyPreds(p, n.Preds, d.meta)
		// Keys: walk inputs left to right. An input whose key is equated
		// to columns already joined matches at most one row per row so far,
		// and keeps the keys so far; otherwise keys combine.
		acc := ins[0].Keys
		accCols := n.Inputs[0].OutColSet()
		for i := 1; i < len(ins); i++ {
			cols := n.Inputs[i].OutColSet()
			switch {
			case keyEquated(ins[i].Keys, p, accCols):
				// keep acc
			case keyEquated(acc, p, cols):
				acc = ins[i].Keys
			default:
				acc = combineKeys(acc, ins[i].Keys)
			}
			accCols.UnionWith(cols)
		}
		p.Keys = acc
		return p
	case LeftJoin, RightJoin:
		pres, null := 0, 1
		if n.Join == RightJoin {
			pres, null = 1, 0
		}
		p := &Props{NotNull: ins[pres].NotNull.Copy(), Equiv: ins[pres].Equiv}
		cond := &Props{}
		applyPreds(cond, n.Preds, d.meta)
		cond.Equiv = append(cond.Equiv, ins[null].Equiv...)
		if keyEquated(ins[null].Keys, cond, n.Inputs[pres].OutColSet()) {
			p.Keys = ins[pres].Keys
		} else {
			p.Keys = combineKeys(ins[pres].Keys, ins[null].Keys)
		}
		return p
	}
	return &Props{}
}

// keyEquated reports whether one of keys has every column equal (by p's
// classes) to some column in other.
func keyEquated(keys []ColSet, p *Props, other ColSet) bool {
	for _, k := range keys {
		ok := true // an empty key: at most one row matches
		for _, c := range k.Ordered() {
			if !p.EquivOf(c).Intersects(other) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// maxKeys bounds the keys kept per node. Combining the keys of joined
// inputs multiplies their numbers, which would grow exponentially over a
// chain of joins; forgetting a key only makes later rules more cautious.
const maxKeys = 16

// combineKeys returns the unions of one key of a and one of b: keys of
// a join whose sides match many-to-many. Keys containing another are
// dropped (they say nothing more), and at most maxKeys are kept.
func combineKeys(a, b []ColSet) []ColSet {
	var out []ColSet
	for _, x := range a {
		for _, y := range b {
			out = addMinimalKey(out, x.Union(y))
		}
	}
	if len(out) > maxKeys {
		out = out[:maxKeys]
	}
	return out
}

// addMinimalKey adds k to keys unless a key within k is there already,
// removing the keys that contain k.
func addMinimalKey(keys []ColSet, k ColSet) []ColSet {
	for _, o := range keys {
		if o.SubsetOf(k) {
			return keys
		}
	}
	out := keys[:0]
	for _, o := range keys {
		if !k.SubsetOf(o) {
			out = append(out, o)
		}
	}
	return append(out, k)
}

// ReadsOuter reports whether the subtree at n reads a column it does not
// produce (an output, aggregate or projection of a node at or below n):
// a correlated subquery, whose value depends on the row that evaluates it.
func (n *Node) ReadsOuter() bool {
	var produced ColSet
	n.WalkNodes(func(x *Node) {
		produced.UnionWith(x.OutColSet())
		for _, it := range x.Aggs {
			produced.Add(it.ID)
		}
		for _, it := range x.Proj {
			produced.Add(it.ID)
		}
	})
	found := false
	n.WalkExprs(func(e *Expr) {
		WalkDeep(e, func(y *Expr) {
			if y.Kind == ColRef && !produced.Has(y.Col) {
				found = true
			}
		})
	})
	return found
}
