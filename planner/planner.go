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

// Options tune planning.
type Options struct {
	// SkipNormalize returns the plan as built, for debugging and tests of
	// single rules.
	SkipNormalize bool
}

// Plan parses sql against schema s and returns its normalized plan.
func Plan(ctx context.Context, s *catalog.Schema, sql string, opts Options) (*plan.Plan, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := build.Build(s, sql)
	if err != nil {
		return nil, err
	}
	if opts.SkipNormalize {
		return p, nil
	}
	return norm.Normalize(p)
}
