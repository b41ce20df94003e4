// Package plan defines the logical plan: relational operators over typed,
// name-resolved scalar expressions, with derived properties and a canonical
// text form whose hash is the plan's fingerprint.
package plan

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// ColumnID names one column instance within a query. Two scans of the same
// table get different IDs, so references never depend on alias strings.
type ColumnID int32

// ExprKind is the kind of a scalar expression.
type ExprKind uint8

// Expression kinds.
const (
	ColRef ExprKind = iota
	Const
	Op       // an operator: Name is one of the Op* constants
	Func     // a scalar function call
	Agg      // an aggregate call; only inside Aggregate nodes
	WinFunc  // a window function call; only inside Window nodes
	Case     // Args: [operand?] when1, then1, ..., [else]; see CaseHasOperand/HasElse
	Cast     // Args[0] cast to Typ
	Subquery // Sub is the subquery plan; SubKind says how it is used
	Tuple    // a row constructor (a, b)
	Param    // $n placeholder
)

// Operator names used in Op expressions.
const (
	OpAnd        = "and"
	OpOr         = "or"
	OpNot        = "not"
	OpEq         = "="
	OpNe         = "<>"
	OpLt         = "<"
	OpLe         = "<="
	OpGt         = ">"
	OpGe         = ">="
	OpLike       = "like"
	OpILike      = "ilike"
	OpNotLike    = "not like"
	OpNotILike   = "not ilike"
	OpSimilar    = "similar to"
	OpIsNull     = "is null"
	OpIsNotNull  = "is not null"
	OpIsDistinct = "is distinct from"
	OpNotDistinc = "is not distinct from"
	OpIsTrue     = "is true"
	OpIsNotTrue  = "is not true"
	OpIsFalse    = "is false"
	OpIsNotFalse = "is not false"
	OpAdd        = "+"
	OpSub        = "-"
	OpMul        = "*"
	OpDiv        = "/"
	OpMod        = "%"
	OpConcat     = "||"
	OpNeg        = "neg"

	// PostgreSQL operators the planner types but most rules treat as
	// opaque strict calls (build/pgops.go).
	OpBitAnd      = "&"   // integer bitwise AND
	OpBitOr       = "|"   // integer bitwise OR
	OpBitXor      = "#"   // integer bitwise XOR
	OpBitNot      = "~"   // prefix: integer bitwise NOT (one operand)
	OpRegex       = "~"   // text ~ pattern (two operands): POSIX regular expression match; !~ is its NOT
	OpIRegex      = "~*"  // text ~* pattern: case-insensitive match; !~* is its NOT
	OpJSONField   = "->"  // jsonb -> text|int: a member or element
	OpJSONText    = "->>" // jsonb ->> text|int: a member or element as text
	OpContains    = "@>"  // jsonb @> jsonb, array @> array
	OpContainedBy = "<@"  // jsonb <@ jsonb, array <@ array
	OpJSONExists  = "?"   // jsonb ? text: a top-level key, or a string element of a top-level array
	OpSubscript   = "[]"  // array[index]: one element
)

// SubKind says how a subquery expression uses its plan.
type SubKind uint8

// Subquery uses.
const (
	SubScalar SubKind = iota // (SELECT x ...)
	SubExists                // EXISTS (...)
	SubAny                   // Args op ANY (...); IN is = ANY
	SubAll                   // Args op ALL (...)
)

// Expr is a typed scalar expression. One struct serves every kind so that
// rewrites can walk and replace children generically.
type Expr struct {
	Kind ExprKind
	Typ  catalog.Type
	// Name: operator or function name (lower case), aggregate name.
	Name string
	Args []*Expr
	// Col is the referenced column for ColRef.
	Col ColumnID
	// Value is the canonical literal text for Const, and for a Cast to a
	// type with a modifier that type (numeric(10,2)); Null marks NULL.
	Value string
	Null  bool
	// Distinct and Filter qualify aggregate calls; Star marks count(*).
	Distinct bool
	Star     bool
	Filter   *Expr
	// Case flags.
	CaseHasOperand bool
	HasElse        bool
	// Subquery fields: Sub is the plan, SubKind its use, SubOp the
	// comparison for ANY/ALL.
	Sub     *Node
	SubKind SubKind
	SubOp   string
	// Window fields for WinFunc.
	Partition []*Expr
	Order     []SortKey
	// Pos is the byte offset in the source SQL, for error messages; -1 when
	// synthesized.
	Pos int32
}

// NewCol returns a reference to column id of type t.
func NewCol(id ColumnID, t catalog.Type) *Expr { return &Expr{Kind: ColRef, Col: id, Typ: t, Pos: -1} }

// NewConst returns a literal.
func NewConst(t catalog.Type, v string) *Expr { return &Expr{Kind: Const, Typ: t, Value: v, Pos: -1} }

// NewNull returns a NULL literal of type t.
func NewNull(t catalog.Type) *Expr { return &Expr{Kind: Const, Typ: t, Null: true, Pos: -1} }

// NewBool returns TRUE or FALSE.
func NewBool(b bool) *Expr {
	if b {
		return NewConst(catalog.Bool, "true")
	}
	return NewConst(catalog.Bool, "false")
}

// NewOp returns an operator expression.
func NewOp(name string, t catalog.Type, args ...*Expr) *Expr {
	return &Expr{Kind: Op, Name: name, Typ: t, Args: args, Pos: -1}
}

// IsOp reports whether e is the operator name.
func (e *Expr) IsOp(name string) bool { return e != nil && e.Kind == Op && e.Name == name }

// IsTrue reports whether e is the literal TRUE.
func (e *Expr) IsTrue() bool {
	return e != nil && e.Kind == Const && !e.Null && e.Typ == catalog.Bool && e.Value == "true"
}

// IsFalse reports whether e is the literal FALSE.
func (e *Expr) IsFalse() bool {
	return e != nil && e.Kind == Const && !e.Null && e.Typ == catalog.Bool && e.Value == "false"
}

// Copy returns a deep copy of e; subquery plans are copied too.
func (e *Expr) Copy() *Expr {
	if e == nil {
		return nil
	}
	c := *e
	if e.Args != nil {
		c.Args = make([]*Expr, len(e.Args))
		for i, a := range e.Args {
			c.Args[i] = a.Copy()
		}
	}
	c.Filter = e.Filter.Copy()
	if e.Partition != nil {
		c.Partition = make([]*Expr, len(e.Partition))
		for i, a := range e.Partition {
			c.Partition[i] = a.Copy()
		}
	}
	if e.Order != nil {
		c.Order = make([]SortKey, len(e.Order))
		for i, k := range e.Order {
			c.Order[i] = SortKey{Expr: k.Expr.Copy(), Desc: k.Desc, NullsFirst: k.NullsFirst}
		}
	}
	c.Sub = e.Sub.Copy()
	return &c
}

// Children visits every direct child expression slot of e (arguments,
// aggregate filter, window partition and order keys) so rewrites can
// replace them in place.
func (e *Expr) Children(f func(slot **Expr)) {
	for i := range e.Args {
		f(&e.Args[i])
	}
	if e.Filter != nil {
		f(&e.Filter)
	}
	for i := range e.Partition {
		f(&e.Partition[i])
	}
	for i := range e.Order {
		f(&e.Order[i].Expr)
	}
}

// Walk calls f on e and every descendant, parents first. It does not enter
// subquery plans; use WalkDeep for that.
func Walk(e *Expr, f func(*Expr)) {
	if e == nil {
		return
	}
	f(e)
	e.Children(func(s **Expr) { Walk(*s, f) })
}

// WalkDeep is Walk that also enters the expressions of subquery plans.
// Each expression is visited once: WalkExprs already reaches every node
// of a subquery's expressions, so only subqueries need entering here
// (walking deep again from each of them made nested subqueries cost
// exponential time).
func WalkDeep(e *Expr, f func(*Expr)) {
	var g func(x *Expr)
	g = func(x *Expr) {
		f(x)
		if x.Kind == Subquery && x.Sub != nil {
			x.Sub.WalkExprs(g)
		}
	}
	Walk(e, g)
}

// Rewrite replaces e bottom-up by f's result; f receives nodes whose
// children were already rewritten.
func Rewrite(e *Expr, f func(*Expr) *Expr) *Expr {
	if e == nil {
		return nil
	}
	e.Children(func(s **Expr) { *s = Rewrite(*s, f) })
	return f(e)
}

// Cols returns the set of columns e references, including outer
// references made from inside subqueries.
func (e *Expr) Cols() ColSet {
	var s ColSet
	WalkDeep(e, func(x *Expr) {
		if x.Kind == ColRef {
			s.Add(x.Col)
		}
	})
	return s
}

// HasSubquery reports whether e contains a subquery.
func (e *Expr) HasSubquery() bool {
	found := false
	Walk(e, func(x *Expr) {
		if x.Kind == Subquery {
			found = true
		}
	})
	return found
}

// HasAgg reports whether e contains an aggregate call outside subqueries.
func (e *Expr) HasAgg() bool {
	found := false
	Walk(e, func(x *Expr) {
		if x.Kind == Agg {
			found = true
		}
	})
	return found
}

// Conjuncts splits e at top-level ANDs.
func Conjuncts(e *Expr) []*Expr {
	if e == nil {
		return nil
	}
	if e.IsOp(OpAnd) {
		var out []*Expr
		for _, a := range e.Args {
			out = append(out, Conjuncts(a)...)
		}
		return out
	}
	return []*Expr{e}
}

// And joins conjuncts; nil for none.
func And(cs []*Expr) *Expr {
	switch len(cs) {
	case 0:
		return nil
	case 1:
		return cs[0]
	}
	return NewOp(OpAnd, catalog.Bool, cs...)
}

var exprKindNames = [...]string{ColRef: "column", Const: "literal", Op: "operator", Func: "function call",
	Agg: "aggregate", WinFunc: "window function", Case: "CASE", Cast: "cast", Subquery: "subquery",
	Tuple: "row constructor", Param: "parameter"}

// String names the kind in words, for messages users read.
func (k ExprKind) String() string {
	if int(k) < len(exprKindNames) && exprKindNames[k] != "" {
		return exprKindNames[k]
	}
	return "unknown kind of"
}

var subKindNames = [...]string{SubScalar: "scalar", SubExists: "EXISTS", SubAny: "ANY/IN", SubAll: "ALL"}

// String names the use in words, for messages users read.
func (k SubKind) String() string {
	if int(k) < len(subKindNames) {
		return subKindNames[k]
	}
	return "unknown kind of"
}
