package prove

import (
	"errors"
	"math/big"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "predicates": a decision procedure for scalar expressions under
// three-valued logic, by exhaustive evaluation over a finite domain that
// realizes every order type.
//
// The interpreted atoms only compare values (=, <>, <, <=, >, >=, IN,
// IS [NOT] DISTINCT FROM), test NULL and combine truth values (AND, OR,
// NOT, CASE, COALESCE, NULLIF). Such an expression's value depends only on
// where each variable lies relative to the constants and to the variables
// it is compared with, and on which are NULL. So the domain of a variable
// is NULL (unless the column is NOT NULL), every constant of its class,
// and in every gap between constants as many points as the variables it
// may be compared with (for integers and dates, no more than the gap
// holds). Every row's values have the order type of one assignment over
// this domain, so a fact true for all assignments is true for all rows.
// An assignment the domain allows but no row realizes (an opaque value
// unrelated to its arguments, say) can only cost a proof, never make a
// wrong one.

// errTooLarge means the domain is too large to enumerate within the bound.
var errTooLarge = errors.New("prove: predicate domain too large")

// maxAssignments bounds one enumeration.
const maxAssignments = 1 << 16

type varInfo struct {
	key      string
	cls      class
	nullable bool
	integral bool // integer-typed: only whole numbers
}

// space holds the variables and constants of the terms of one check.
type space struct {
	vars  []varInfo
	byKey map[string]int
	// colInfo says a column's nullability; it is the reference's view.
	nullable func(plan.ColumnID) bool
	// col renders the column for keys: the reference's IDs.
	col func(plan.ColumnID) (plan.ColumnID, bool)
	// sub names subqueries for keys (prover.subKey); nil: none.
	sub subKeyer
	// looseEq says whether a reference column's = is not plain equality
	// of values (char(n) ignores trailing spaces, citext case): its
	// comparisons stay opaque. nil: none is.
	looseEq func(plan.ColumnID) bool
	// nondet says a reference column's collation is nondeterministic
	// (Metadata.LooseCol); nil: none is. A comparison of anything read
	// from such a column stays opaque.
	nondet func(plan.ColumnID) bool
	// noDates leaves date arithmetic unfolded (SQLite has no date type).
	noDates bool
	// sqliteLike reads ILIKE as SQLite's LIKE, which folds ASCII case
	// only: a constant pattern's ASCII letters are lowered (likeASCII).
	sqliteLike bool
	// factored: terms factored a disjunction (factor.go), for the trace.
	factored bool
	// anyValues: terms read x op ANY/ALL (VALUES ...) as a disjunction
	// or conjunction (anyvalues.go), for the trace.
	anyValues bool
	// equalCols: terms read columns a conjunct equates as one
	// (colsubst.go), for the trace.
	equalCols bool
	// declared gives a reference column's declared type; nil: unknown.
	declared func(plan.ColumnID) string
	// ints says which of the reference's integer-typed columns hold
	// only integers; nil: all do (PostgreSQL). In SQLite an INTEGER
	// column may hold 5.5, so it is no integral variable.
	ints *plan.IntegerChecker
	// consts per class, for ranks.
	consts [clsCount][]constVal
	// displayOnly, when set, hears of each display-only difference a
	// term identified (a numeric cast that keeps the value but not its
	// printed scale), for the proof to name.
	displayOnly func(what string)
}

// castKeeps is castKeepsValue, reporting a display-only identification.
func (s *space) castKeeps(e *plan.Expr) bool {
	if s.ints != nil && s.ints.SQLite() && len(e.Args) == 1 && !s.integral(e.Args[0]) {
		// SQLite: an ordinary column may hold text ('x'), which
		// CAST(... AS REAL) turns into 0 and which orders after every
		// number: only an integer-valued operand widens in order.
		return false
	}
	keeps, display := castKeepsValue(e, s.col, s.declared)
	if keeps && display != "" && s.displayOnly != nil {
		s.displayOnly(display)
	}
	return keeps
}

func newSpace(col func(plan.ColumnID) (plan.ColumnID, bool), nullable func(plan.ColumnID) bool) *space {
	return &space{byKey: map[string]int{}, col: col, nullable: nullable}
}

func (s *space) variable(key string, cls class, nullable, integral bool) int {
	if i, ok := s.byKey[key]; ok {
		if nullable {
			s.vars[i].nullable = true
		}
		return i
	}
	s.vars = append(s.vars, varInfo{key: key, cls: cls, nullable: nullable, integral: integral})
	s.byKey[key] = len(s.vars) - 1
	return len(s.vars) - 1
}

// errUnkeyable means an expression holds something the procedure cannot
// name (a subquery, a volatile call).
var errUnkeyable = errors.New("prove: expression cannot be keyed")

// termUnder is term with columns and subqueries named through col and
// sub, as one side of a proof names them; s keeps its own naming after.
func (s *space) termUnder(e *plan.Expr, col func(plan.ColumnID) (plan.ColumnID, bool), sub subKeyer) (*term, error) {
	saved, savedSub := s.col, s.sub
	s.col, s.sub = col, sub
	defer func() { s.col, s.sub = saved, savedSub }()
	return s.term(e)
}

// term translates e. Columns map through s.col.
func (s *space) term(e *plan.Expr) (*term, error) {
	if s.sqliteLike {
		e = likeASCII(e)
	}
	if !s.noDates && dateish(e) {
		if days, ok := dateValue(e); ok {
			return &term{op: "const", cls: clsDate, c: constVal{num: new(big.Rat).SetInt64(days), integral: true}}, nil
		}
	}
	switch e.Kind {
	case plan.ColRef:
		c, ok := s.col(e.Col)
		if !ok {
			return nil, errUnkeyable
		}
		cl, ok := classOf(e.Typ)
		if !ok {
			cl = clsEq
		}
		key, _ := exprKeySub(e, s.col, s.sub)
		v := s.variable(key, cl, s.nullable(c), e.Typ == catalog.Int && (s.ints == nil || s.ints.Column(c)))
		return &term{op: "var", v: v, cls: cl}, nil
	case plan.Const:
		if e.Null {
			cl, ok := classOf(e.Typ)
			if !ok {
				cl = clsEq
			}
			return &term{op: "const", cls: cl, c: constVal{null: true}}, nil
		}
		if cl, ok := classOf(e.Typ); ok {
			if c, ok := parseConst(e, cl); ok {
				return &term{op: "const", cls: cl, c: c}, nil
			}
		}
	case plan.Op:
		if t, ok, err := s.op(e); err != nil || ok {
			return t, err
		}
	case plan.Func:
		if volatile[e.Name] {
			return nil, errUnkeyable
		}
		if t, ok, err := s.fn(e); err != nil || ok {
			return t, err
		}
	case plan.Case:
		if t, ok, err := s.caseTerm(e); err != nil || ok {
			return t, err
		}
	case plan.Cast:
		if len(e.Args) == 1 {
			a, err := s.term(e.Args[0])
			if err != nil {
				return nil, err
			}
			to, ok := classOf(e.Typ)
			switch {
			case ok && a.cls == clsBool && to == clsNum && e.Typ == catalog.Int:
				return &term{op: "castint", cls: clsNum, args: []*term{a}}, nil
			case ok && a.cls == to && (to == clsBool || to == clsDate || (to == clsNum && e.Typ != catalog.Int && e.Args[0].Typ != catalog.Float && (e.Typ != catalog.Float || e.Args[0].Typ == catalog.Int) && s.castKeeps(e))):
				// A cast within the class that keeps the value and its
				// order: integers widened to numeric or floating point
				// (integers beyond 2^53 aside), numerics to a numeric
				// that holds them (typmod.go).
				return a, nil
			}
		}
	}
	return s.opaque(e)
}

// opaque makes e one variable keyed by its text; a strict operator or
// function is NULL whenever an argument is.
func (s *space) opaque(e *plan.Expr) (*term, error) {
	key, ok := exprKeySub(e, s.col, s.sub)
	if !ok {
		return nil, errUnkeyable
	}
	hasVolatile := false
	plan.Walk(e, func(x *plan.Expr) {
		if x.Kind == plan.Func && volatile[x.Name] {
			hasVolatile = true
		}
	})
	if hasVolatile {
		return nil, errUnkeyable
	}
	cl, ok := classOf(e.Typ)
	if !ok {
		cl = clsEq
	}
	t := &term{op: "var", cls: cl, v: s.variable(key, cl, true, s.integral(e))}
	strict := (e.Kind == plan.Op && strictOps[e.Name]) || (e.Kind == plan.Func && strictFuncs[e.Name] && e.Filter == nil)
	if strict {
		for _, a := range e.Args {
			at, err := s.term(a)
			if err != nil {
				return nil, err
			}
			t.strictArgs = append(t.strictArgs, at)
		}
	}
	return t, nil
}

func (s *space) args(e *plan.Expr) ([]*term, error) {
	out := make([]*term, len(e.Args))
	for i, a := range e.Args {
		t, err := s.term(a)
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

// sameReading says whether the operands of a comparison or IN list
// outside the numbers and booleans are all of one type (NULLs aside).
// PostgreSQL reads a text literal beside a uuid, an inet or a range as
// that type, where '10.0.0.1' = '10.0.0.1/32': its text is not its
// value, and the comparison stays opaque (issue 33, item 4).
func sameReading(es []*plan.Expr) bool {
	var t catalog.Type
	seen := false
	for _, x := range es {
		if x.Kind == plan.Const && x.Null {
			continue
		}
		if x.Typ.IsNumeric() || x.Typ == catalog.Bool {
			return true // numbers compare by value, booleans are two
		}
		if seen && x.Typ != t {
			return false
		}
		t, seen = x.Typ, true
	}
	return true
}

func sameClass(a, b *term) bool {
	return a.cls == b.cls || (a.op == "const" && a.c.null) || (b.op == "const" && b.c.null)
}

func (s *space) op(e *plan.Expr) (*term, bool, error) {
	switch e.Name {
	case plan.OpAnd, plan.OpOr, plan.OpNot, plan.OpIsNull, plan.OpIsNotNull, plan.OpIsTrue, plan.OpIsNotTrue, plan.OpIsFalse, plan.OpIsNotFalse:
		args, err := s.args(e)
		if err != nil {
			return nil, false, err
		}
		switch e.Name {
		case plan.OpAnd, plan.OpOr, plan.OpNot, plan.OpIsTrue, plan.OpIsNotTrue, plan.OpIsFalse, plan.OpIsNotFalse:
			for _, a := range args {
				if a.cls != clsBool && !(a.op == "const" && a.c.null) {
					return nil, false, nil
				}
			}
		}
		if e.Name != plan.OpAnd && e.Name != plan.OpOr && len(args) != 1 {
			return nil, false, nil
		}
		if (e.Name == plan.OpAnd || e.Name == plan.OpOr) && len(args) == 0 {
			return nil, false, nil
		}
		return &term{op: e.Name, cls: clsBool, args: args}, true, nil
	case plan.OpEq, plan.OpNe, plan.OpLt, plan.OpLe, plan.OpGt, plan.OpGe, plan.OpIsDistinct, plan.OpNotDistinc:
		if len(e.Args) != 2 || s.loose(e) {
			return nil, false, nil
		}
		args, err := s.args(e)
		if err != nil {
			return nil, false, err
		}
		if !sameClass(args[0], args[1]) || !sameReading(e.Args) {
			return nil, false, nil
		}
		cl := args[0].cls
		if args[0].op == "const" && args[0].c.null {
			cl = args[1].cls
		}
		ordered := e.Name != plan.OpEq && e.Name != plan.OpNe && e.Name != plan.OpIsDistinct && e.Name != plan.OpNotDistinc
		if ordered && cl == clsEq {
			return nil, false, nil // collation-dependent: opaque
		}
		if e.Name == plan.OpIsDistinct || e.Name == plan.OpNotDistinc {
			return &term{op: e.Name, cls: clsBool, args: args}, true, nil
		}
		return &term{op: "cmp", cmp: e.Name, cls: clsBool, args: args}, true, nil
	case "in", "not in":
		if len(e.Args) < 2 || s.loose(e) {
			return nil, false, nil
		}
		args, err := s.args(e)
		if err != nil {
			return nil, false, err
		}
		for _, a := range args[1:] {
			if !sameClass(args[0], a) {
				return nil, false, nil
			}
		}
		if !sameReading(e.Args) {
			return nil, false, nil
		}
		op := "in"
		if e.Name == "not in" {
			op = "notin"
		}
		return &term{op: op, cls: clsBool, args: args}, true, nil
	}
	return nil, false, nil
}

func (s *space) fn(e *plan.Expr) (*term, bool, error) {
	switch e.Name {
	case "coalesce", "ifnull":
		args, err := s.args(e)
		if err != nil || len(args) == 0 {
			return nil, false, err
		}
		cl, ok := resultClass(args)
		if !ok {
			return nil, false, nil
		}
		return &term{op: "coalesce", cls: cl, args: args}, true, nil
	case "nullif":
		if len(e.Args) != 2 {
			return nil, false, nil
		}
		args, err := s.args(e)
		if err != nil {
			return nil, false, err
		}
		if !sameClass(args[0], args[1]) || args[0].cls == clsEq && e.Args[0].Typ != e.Args[1].Typ {
			return nil, false, nil
		}
		return &term{op: "nullif", cls: args[0].cls, args: args}, true, nil
	}
	return nil, false, nil
}

func resultClass(ts []*term) (class, bool) {
	var cl class
	found := false
	for _, t := range ts {
		if t.op == "const" && t.c.null {
			continue
		}
		if found && t.cls != cl {
			return 0, false
		}
		cl, found = t.cls, true
	}
	if !found {
		cl = clsEq
	}
	return cl, true
}

func (s *space) caseTerm(e *plan.Expr) (*term, bool, error) {
	args, err := s.args(e)
	if err != nil {
		return nil, false, err
	}
	var operand *term
	if e.CaseHasOperand {
		if len(args) == 0 {
			return nil, false, nil
		}
		operand, args = args[0], args[1:]
	}
	var els *term
	if e.HasElse {
		if len(args) == 0 {
			return nil, false, nil
		}
		els, args = args[len(args)-1], args[:len(args)-1]
	}
	if len(args)%2 != 0 {
		return nil, false, nil
	}
	t := &term{op: "case", hasElse: els != nil}
	var results []*term
	for i := 0; i < len(args); i += 2 {
		cond := args[i]
		if operand != nil {
			if !sameClass(operand, cond) || (operand.cls == clsEq && cond.cls == clsEq && !(cond.op == "const")) {
				return nil, false, nil
			}
			cond = &term{op: "cmp", cmp: plan.OpEq, cls: clsBool, args: []*term{operand, cond}}
		} else if cond.cls != clsBool && !(cond.op == "const" && cond.c.null) {
			return nil, false, nil
		}
		t.args = append(t.args, cond, args[i+1])
		results = append(results, args[i+1])
	}
	if els != nil {
		t.args = append(t.args, els)
		results = append(results, els)
	}
	cl, ok := resultClass(results)
	if !ok {
		return nil, false, nil
	}
	t.cls = cl
	return t, true, nil
}

// vars adds the variables t mentions to set.
func (t *term) vars(set map[int]bool) {
	if t.op == "var" {
		set[t.v] = true
	}
	for _, a := range t.args {
		a.vars(set)
	}
	for _, a := range t.strictArgs {
		a.vars(set)
	}
}

// dateish says whether e may be a date-valued constant expression.
func dateish(e *plan.Expr) bool {
	switch e.Kind {
	case plan.Const, plan.Cast:
		return e.Typ == catalog.Date || e.Typ == catalog.Timestamp
	case plan.Func:
		return e.Name == "date"
	case plan.Op:
		return (e.Name == plan.OpAdd || e.Name == plan.OpSub) && (e.Typ == catalog.Date || e.Typ == catalog.Timestamp || e.Typ == catalog.Unknown)
	}
	return false
}

// loose says whether e compares a column whose equality is loose, a
// value computed from a column under a nondeterministic collation (whose
// comparisons follow it), or intervals or json with a constant: their =
// is not equality of the constants' text ('1 month' = '30 days'), so two
// such equalities with unequal constants are not a contradiction (= is
// still an equivalence, so comparisons of variables alone stay).
func (s *space) loose(e *plan.Expr) bool {
	for _, a := range e.Args {
		if (a.Typ == catalog.Interval || a.Typ == catalog.JSON) && hasConst(e) {
			return true
		}
		if s.nondet != nil && s.col != nil {
			tainted := false
			plan.WalkDeep(a, func(x *plan.Expr) {
				if !tainted && x.Kind == plan.ColRef {
					if c, ok := s.col(x.Col); ok && s.nondet(c) {
						tainted = true
					}
				}
			})
			if tainted {
				return true
			}
		}
	}
	if s.looseEq == nil {
		return false
	}
	for _, a := range e.Args {
		if a.Kind == plan.ColRef {
			if c, ok := s.col(a.Col); ok && s.looseEq(c) {
				return true
			}
		}
	}
	return false
}

// hasConst says whether an argument of e is a literal, or a cast of one.
func hasConst(e *plan.Expr) bool {
	for _, a := range e.Args {
		for a.Kind == plan.Cast && len(a.Args) == 1 {
			a = a.Args[0]
		}
		if a.Kind == plan.Const {
			return true
		}
	}
	return false
}

// integral says e takes only whole numbers: it is integer-typed and, in
// SQLite, integer-valued (plan.IntegerChecker) with its columns named
// through s.col.
func (s *space) integral(e *plan.Expr) bool {
	if e.Typ != catalog.Int {
		return false
	}
	if s.ints == nil || !s.ints.SQLite() {
		return true
	}
	return s.ints.ExprWith(e, func(id plan.ColumnID) bool {
		c, ok := s.col(id)
		return ok && s.ints.Column(c)
	})
}

// intsFn is s.integral for foldInts and pins; nil (every integer-typed
// term) outside SQLite.
func (s *space) intsFn() func(*plan.Expr) bool {
	if s.ints == nil || !s.ints.SQLite() {
		return nil
	}
	return s.integral
}
