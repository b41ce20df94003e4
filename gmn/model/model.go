// Package model ships the trained graph matching network: weights.bin,
// embedded in the binary, trained by `pgequiv train` on every shared
// labelled pair plus synthetic rewrites (see gmn/MODEL_CARD.md), and
// helpers that score pairs of plans with it.
//
// Typical use:
//
//	m, err := model.Default()
//	s, err := model.ScorePlans(m, refPlan, candPlan) // *plan.Plan from planner.Plan
//
// or, when the same plans are scored repeatedly, build their programs once
// with plangraph.BuildProgram and call model.Score.
package model

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"sync"

	"github.com/pgequiv/pgequiv/gmn"
	"github.com/pgequiv/pgequiv/gmn/plangraph"
	"github.com/pgequiv/pgequiv/planner/plan"
)

//go:embed weights.bin
var weights []byte

var (
	once   sync.Once
	shared *gmn.Model
	errDef error
)

// Default returns the shipped model, loaded once and shared: it is safe for
// concurrent Score calls, and must not be trained.
func Default() (*gmn.Model, error) {
	once.Do(func() {
		shared, errDef = gmn.Load(bytes.NewReader(weights))
		if errDef == nil && shared.Config().NumTypes != plangraph.NumTypes {
			errDef = fmt.Errorf("%w: weights for %d node types, vocabulary has %d",
				gmn.ErrMismatch, shared.Config().NumTypes, plangraph.NumTypes)
		}
	})
	return shared, errDef
}

// Score returns m's similarity in (0, 1] of two programs, identifying
// their equal subtrees and content (plangraph.Seeds).
func Score(m *gmn.Model, a, b *plangraph.Program) (float64, error) {
	return m.Score(a.G, b.G, plangraph.Seeds(a, b))
}

// ScorePlans builds the programs of two plans and scores them.
func ScorePlans(m *gmn.Model, a, b *plan.Plan) (float64, error) {
	pa, err := plangraph.BuildProgram(a)
	if err != nil {
		return 0, err
	}
	pb, err := plangraph.BuildProgram(b)
	if err != nil {
		return 0, err
	}
	return Score(m, pa, pb)
}

// Embedded is a program with its standalone node embeddings: the
// per-query GMN artifact worth caching (see gmn.Embeddings).
type Embedded struct {
	Prog *plangraph.Program
	E    *gmn.Embeddings
}

// Embed computes prog's standalone node embeddings under m.
func Embed(m *gmn.Model, prog *plangraph.Program) (*Embedded, error) {
	e, err := m.Embed(prog.G)
	if err != nil {
		return nil, err
	}
	return &Embedded{Prog: prog, E: e}, nil
}

// ScoreEmbedded is Score on embedded programs; it runs only the
// pair-dependent part of the network.
func ScoreEmbedded(m *gmn.Model, a, b *Embedded) (float64, error) {
	return m.ScoreEmbedded(a.E, b.E, plangraph.Seeds(a.Prog, b.Prog))
}

// ScoreEmbeddedContext is ScoreEmbedded, stopping with ctx's error when
// ctx ends.
func ScoreEmbeddedContext(ctx context.Context, m *gmn.Model, a, b *Embedded) (float64, error) {
	return m.ScoreEmbeddedContext(ctx, a.E, b.E, plangraph.Seeds(a.Prog, b.Prog))
}
