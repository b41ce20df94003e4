package gmn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"gonum.org/v1/gonum/mat"

	ad "github.com/pgequiv/pgequiv/gmn/autodiff"
	"github.com/pgequiv/pgequiv/gmn/graph"
)

// Example is a labelled pair for supervised training: Label is 1 for
// equivalent queries and 0 otherwise (soft labels in between are allowed).
type Example struct {
	A, B  *graph.Graph
	Seeds []graph.Pair // as for Model.Score
	Label float64
}

// TrainConfig configures a Trainer. Zero fields take defaults.
type TrainConfig struct {
	LR       float64 // Adam learning rate (default 1e-3)
	ClipNorm float64 // global gradient-norm clip; 0 disables
	// Workers is the number of goroutines a batch is split over (default
	// 1). Each worker gets a fixed contiguous slice of the batch and the
	// per-worker gradients are summed in worker order, so results are
	// bit-for-bit reproducible for a given Workers value (but may differ
	// in the last bits between different Workers values).
	Workers int
	// Temperature of the NT-Xent contrastive loss (default 0.5).
	Temperature float64
	// DropFrac and MaskFrac are the GraphCL augmentation rates (default
	// 0.1 each; a negative value disables the augmentation).
	DropFrac, MaskFrac float64
}

func (c TrainConfig) withDefaults() (TrainConfig, error) {
	if c.LR == 0 {
		c.LR = 1e-3
	}
	if c.Workers == 0 {
		c.Workers = 1
	}
	if c.Temperature == 0 {
		c.Temperature = 0.5
	}
	for _, f := range []*float64{&c.DropFrac, &c.MaskFrac} {
		switch {
		case *f == 0:
			*f = 0.1
		case *f < 0:
			*f = 0
		}
	}
	switch {
	case !(c.LR > 0), c.ClipNorm < 0, c.Workers < 1, c.Workers > 1024, !(c.Temperature > 0),
		c.DropFrac >= 1, c.MaskFrac > 1:
		return c, fmt.Errorf("%w: %+v", ErrTrainConfig, c)
	}
	return c, nil
}

// Trainer updates a Model's weights with Adam. It is not safe for
// concurrent use, and Score must not run on the model during a step.
type Trainer struct {
	m     *Model
	cfg   TrainConfig
	opt   *ad.Adam
	work  []ad.Grads // per-worker gradient accumulators
	wslot []*slot    // per-worker tape and input buffers (pair steps)
	total ad.Grads
	slots []*slot // per-example working memory (contrastive steps, results)
}

type slot struct {
	tape *ad.Tape
	in   pairInput
	vecs *ad.Node
	loss float64
	err  error
}

// NewTrainer returns a trainer for m.
func NewTrainer(m *Model, cfg TrainConfig) (*Trainer, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: nil model", ErrTrainConfig)
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	tr := &Trainer{m: m, cfg: cfg, opt: ad.NewAdam(cfg.LR), total: m.ps.NewGrads()}
	tr.opt.ClipNorm = cfg.ClipNorm
	for i := 0; i < cfg.Workers; i++ {
		tr.work = append(tr.work, m.ps.NewGrads())
		tr.wslot = append(tr.wslot, &slot{tape: ad.NewTape(true)})
	}
	return tr, nil
}

// Steps is the number of optimiser updates applied so far.
func (tr *Trainer) Steps() int { return tr.opt.Steps() }

func (tr *Trainer) ensureSlots(n int) {
	for len(tr.slots) < n {
		tr.slots = append(tr.slots, &slot{tape: ad.NewTape(true)})
	}
}

// parallel runs f(worker, i) for i in [0, n), worker w owning the fixed
// contiguous range [w·n/W, (w+1)·n/W), and waits.
func (tr *Trainer) parallel(n int, f func(w, i int)) {
	var wg sync.WaitGroup
	nw := len(tr.work)
	for w := 0; w < nw; w++ {
		lo, hi := w*n/nw, (w+1)*n/nw
		if lo == hi {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				f(w, i)
			}
		}()
	}
	wg.Wait()
}

// reduce sums the worker gradients in worker order into tr.total.
func (tr *Trainer) reduce() {
	tr.total.Zero()
	for _, g := range tr.work {
		tr.total.AddScaled(1, g)
	}
}

func (tr *Trainer) zeroWork() {
	for _, g := range tr.work {
		g.Zero()
	}
}

// pairGrads computes the mean BCE loss of batch and leaves its gradient in
// tr.total without updating the weights.
func (tr *Trainer) pairGrads(batch []Example) (float64, error) {
	if len(batch) == 0 {
		return 0, fmt.Errorf("%w: empty", ErrBatch)
	}
	for i, ex := range batch {
		if !(ex.Label >= 0 && ex.Label <= 1) {
			return 0, fmt.Errorf("%w: example %d label %g", ErrBatch, i, ex.Label)
		}
	}
	m := tr.m
	tr.ensureSlots(len(batch))
	tr.zeroWork()
	inv := 1 / float64(len(batch))
	// Each example is back-propagated at once, so a worker's tape and
	// input buffers are reused from one example to the next.
	tr.parallel(len(batch), func(w, i int) {
		s, ws, ex := tr.slots[i], tr.wslot[w], batch[i]
		s.err = m.prepare(&ws.in, ex.A, ex.B, ex.Seeds, m.cfg.NumTypes)
		if s.err != nil {
			return
		}
		t := ws.tape
		t.Reset()
		loss := t.DistBCE(pairDist(t, m.forward(t, &ws.in)), ex.Label, m.cfg.Tau)
		s.loss = loss.Scalar()
		t.Backward(t.Scale(inv, loss))
		t.AddParamGrads(&m.ps, tr.work[w])
	})
	sum := 0.0
	for i := range batch {
		if err := tr.slots[i].err; err != nil {
			return 0, fmt.Errorf("example %d: %w", i, err)
		}
		sum += tr.slots[i].loss
	}
	tr.reduce()
	return sum * inv, nil
}

// EvalPairs returns the mean binary cross-entropy of batch without
// updating the weights (for validation). It uses the trainer's buffers.
func (tr *Trainer) EvalPairs(batch []Example) (float64, error) {
	return tr.pairGrads(batch)
}

// PairStep takes one Adam step on the mean binary cross-entropy between the
// pair similarities exp(−d²/τ) and the labels, and returns that mean loss
// (measured before the update).
func (tr *Trainer) PairStep(batch []Example) (float64, error) {
	loss, err := tr.pairGrads(batch)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return loss, ErrNonFinite
	}
	return loss, tr.opt.Step(&tr.m.ps, tr.total)
}

// Views builds the two GraphCL views of g: each drops DropFrac of the
// non-root nodes, then masks MaskFrac of the remaining nodes' attributes
// (type → MaskType, text cleared). rng is consumed in a fixed order.
func (tr *Trainer) Views(g *graph.Graph, rng *rand.Rand) (v1, v2 *graph.Graph, err error) {
	view := func() (*graph.Graph, error) {
		d, err := graph.DropNodes(g, tr.cfg.DropFrac, rng)
		if err != nil {
			return nil, err
		}
		return graph.MaskAttributes(d, tr.cfg.MaskFrac, tr.m.MaskType(), rng)
	}
	if v1, err = view(); err != nil {
		return nil, nil, err
	}
	v2, err = view()
	return v1, v2, err
}

// ContrastiveStep takes one GraphCL pre-training step on a batch of at
// least two unlabelled graphs: two augmented views of each graph are
// embedded together as a pair, and the NT-Xent loss pulls a graph's two
// views together while pushing them away from the views of the other
// graphs in the batch. Augmentation randomness comes from rng only.
func (tr *Trainer) ContrastiveStep(graphs []*graph.Graph, rng *rand.Rand) (float64, error) {
	if rng == nil {
		return 0, ErrNilRand
	}
	b := len(graphs)
	if b < 2 {
		return 0, fmt.Errorf("%w: contrastive batch needs ≥ 2 graphs, got %d", ErrBatch, b)
	}
	m := tr.m
	for i, g := range graphs {
		if err := g.Validate(m.cfg.NumTypes); err != nil {
			return 0, fmt.Errorf("%w: graph %d: %w", ErrGraph, i, err)
		}
	}
	views := make([]viewPair, b)
	for i, g := range graphs {
		v1, v2, err := tr.Views(g, rng)
		if err != nil {
			return 0, err
		}
		seeds := graph.ContentSeeds(v1, v2)
		kept := seeds[:0]
		for _, s := range seeds {
			if v1.Nodes[s.A].Type != m.MaskType() {
				kept = append(kept, s)
			}
		}
		views[i] = viewPair{v1, v2, kept}
	}
	l, err := tr.contrastiveGrads(views)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(l) || math.IsInf(l, 0) {
		return l, ErrNonFinite
	}
	return l, tr.opt.Step(&m.ps, tr.total)
}

type viewPair struct {
	a, b  *graph.Graph
	seeds []graph.Pair
}

// contrastiveGrads computes the NT-Xent loss of the given view pairs and
// leaves its gradient in tr.total.
func (tr *Trainer) contrastiveGrads(views []viewPair) (float64, error) {
	m, b := tr.m, len(views)
	tr.ensureSlots(b)
	tr.zeroWork()
	// Phase 1: forward every pair of views, keeping one tape per pair alive
	// until phase 3 (memory grows with the batch size).
	tr.parallel(b, func(_, i int) {
		s := tr.slots[i]
		s.err = m.prepare(&s.in, views[i].a, views[i].b, views[i].seeds, m.cfg.NumTypes+1)
		if s.err != nil {
			return
		}
		s.tape.Reset()
		s.vecs = m.forward(s.tape, &s.in)
	})
	for i := 0; i < b; i++ {
		if err := tr.slots[i].err; err != nil {
			return 0, fmt.Errorf("graph %d: %w", i, err)
		}
	}
	// Phase 2: NT-Xent over the 2B graph vectors.
	gd := m.cfg.GraphDim
	var zs ad.ParamSet
	z := zs.New("z", 2*b, gd)
	for i := 0; i < b; i++ {
		v := tr.slots[i].vecs.Val
		z.Val.SetRow(i, v.RawRowView(0))
		z.Val.SetRow(b+i, v.RawRowView(1))
	}
	lt := ad.NewTape(true)
	loss := lt.NTXent(lt.Param(z), tr.cfg.Temperature)
	lt.Backward(loss)
	gz := zs.NewGrads()
	lt.AddParamGrads(&zs, gz)
	// Phase 3: back-propagate each pair's share of the gradient.
	tr.parallel(b, func(w, i int) {
		s := tr.slots[i]
		seed := mat.NewDense(2, gd, nil)
		seed.SetRow(0, gz[0].RawRowView(i))
		seed.SetRow(1, gz[0].RawRowView(b+i))
		s.tape.BackwardFrom([]*ad.Node{s.vecs}, []*mat.Dense{seed})
		s.tape.AddParamGrads(&m.ps, tr.work[w])
	})
	tr.reduce()
	return loss.Scalar(), nil
}
