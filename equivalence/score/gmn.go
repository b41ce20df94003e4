package score

import (
	"context"
	"fmt"
	"sync"

	"github.com/pgequiv/pgequiv/gmn"
	gmnmodel "github.com/pgequiv/pgequiv/gmn/model"
	"github.com/pgequiv/pgequiv/gmn/plangraph"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Graph is a query's graph for the graph matching network, with its node
// embeddings computed on first use: proved and refuted pairs never need
// them, and a cached query serves concurrent judges.
type Graph struct {
	prog *plangraph.Program
	mu   sync.Mutex
	emb  *gmnmodel.Embedded
}

// NewGraph builds p's graph. The network was trained on normalized plans
// before the ESM+ rewrites: p should be that form.
func NewGraph(p *plan.Plan) (*Graph, error) {
	prog, err := plangraph.BuildProgram(p)
	if err != nil {
		return nil, fmt.Errorf("gmn graph: %w", err)
	}
	return &Graph{prog: prog}, nil
}

// Nodes is the graph's node count, for estimating its memory.
func (g *Graph) Nodes() int { return len(g.prog.G.Nodes) }

// embedding returns the graph's node embeddings under m, computing them
// on first use.
func (g *Graph) embedding(m *gmn.Model) (*gmnmodel.Embedded, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.emb == nil {
		e, err := gmnmodel.Embed(m, g.prog)
		if err != nil {
			return nil, fmt.Errorf("gmn embeddings: %w", err)
		}
		g.emb = e
	}
	return g.emb, nil
}

// Similarity runs the graph matching network on two queries' graphs.
func Similarity(ctx context.Context, m *gmn.Model, ref, cand *Graph) (float64, error) {
	re, err := ref.embedding(m)
	if err != nil {
		return 0, err
	}
	ce, err := cand.embedding(m)
	if err != nil {
		return 0, err
	}
	return gmnmodel.ScoreEmbeddedContext(ctx, m, re, ce)
}
