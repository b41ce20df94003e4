// Package planner turns SQL into normalized logical plans using only a
// schema: build (parse and resolve) then norm (rewrite to canonical form).
package planner

import (
	"context"

	"github.com/pgequiv/pgequiv/planner/build"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/norm"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// ErrTooLarge marks a query whose plan would exceed Options.MaxNodes (or
// whose CTE and view expansions are too large); errors.Is finds it in
// Plan's error, whose text says what was too large.
var ErrTooLarge = build.ErrTooLarge

// ErrNULByte marks SQL text containing a NUL byte, which the parser
// would silently stop at.
var ErrNULByte = build.ErrNULByte

// DefaultMaxNodes is the node budget when Options.MaxNodes is 0.
const DefaultMaxNodes = build.DefaultMaxNodes

// Options tune planning.
type Options struct {
	// SkipNormalize returns the plan as built, for debugging and tests of
	// single rules.
	SkipNormalize bool
	// MaxNodes bounds the plan and expression nodes of the built plan:
	// 0 means DefaultMaxNodes, negative means no bound. Normalization
	// grows a plan by a bounded factor at most.
	MaxNodes int
	// Built, when set, reads the plan as built, before normalization
	// rewrites it (in place): what the query asks of the engine, in the
	// order it asks it.
	Built func(*plan.Plan)
}

// Plan parses sql against schema s and returns its normalized plan. It
// returns ctx's error (wrapped) soon after ctx is done.
func Plan(ctx context.Context, s *catalog.Schema, sql string, opts Options) (*plan.Plan, error) {
	p, err := build.BuildContext(ctx, s, sql, build.Options{MaxNodes: opts.MaxNodes})
	if err != nil {
		return nil, err
	}
	if opts.Built != nil {
		opts.Built(p)
	}
	if opts.SkipNormalize {
		return p, nil
	}
	return norm.NormalizeContext(ctx, p)
}
