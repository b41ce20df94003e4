package build

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Extension admits into one build the functions, operators and casts that
// only system-catalog queries use (pg_catalog.format_type, c.oid::regclass,
// relname OPERATOR(pg_catalog.~) '^(t)$' COLLATE pg_catalog.default, ...):
// database-free mode plans clients' introspection queries with one and runs
// them with an executor that knows the same functions (exec.Options.Funcs).
// The judge never passes an Extension, so none of these constructs can
// enter a judged plan: a user query using them still fails to plan.
type Extension struct {
	// Funcs are extra scalar functions, by lower-case name, with their
	// result types. A name the planner knows keeps its own meaning.
	Funcs map[string]catalog.Type
	// Ops maps a binary operator the planner does not know (~, !~) to the
	// name of a function of Funcs planned for it, with (left, right) as
	// its arguments.
	Ops map[string]string
	// Casts maps a type name the planner does not know (regclass, oid,
	// regtype) to the expression a cast of arg to it plans as, or nil when
	// that cast is not modelled.
	Casts map[string]func(arg *plan.Expr) *plan.Expr
	// IgnoreCollate plans x COLLATE c as x: the catalog's text compares
	// bytewise whatever the collation named.
	IgnoreCollate bool
}

// extFunc plans a call of an extension function, or returns nil.
func (b *builder) extFunc(name string, args []*plan.Expr, pos int32) *plan.Expr {
	if b.ext == nil {
		return nil
	}
	t, ok := b.ext.Funcs[name]
	if !ok {
		return nil
	}
	return &plan.Expr{Kind: plan.Func, Name: name, Args: args, Typ: t, Pos: pos}
}

// extOp plans l op r for an extension operator, or returns nil.
func (b *builder) extOp(op string, l, r *plan.Expr, pos int32) *plan.Expr {
	if b.ext == nil || l == nil {
		return nil
	}
	fn, ok := b.ext.Ops[op]
	if !ok {
		return nil
	}
	return b.extFunc(fn, []*plan.Expr{l, r}, pos)
}

// extCast plans arg::name for an extension cast, or returns nil.
func (b *builder) extCast(name string, arg *plan.Expr) *plan.Expr {
	if b.ext == nil {
		return nil
	}
	if f, ok := b.ext.Casts[name]; ok {
		return f(arg)
	}
	return nil
}

// extCollate plans x COLLATE c as x when the extension says so.
func (b *builder) extCollate(cc *pg.CollateClause, sc *scope, st *aggState) (*plan.Expr, bool, error) {
	if b.ext == nil || !b.ext.IgnoreCollate {
		return nil, false, nil
	}
	e, err := b.expr(cc.Arg, sc, st)
	return e, true, err
}
