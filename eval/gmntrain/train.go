package gmntrain

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/pgequiv/pgequiv/eval/metrics"
	"github.com/pgequiv/pgequiv/gmn"
	"github.com/pgequiv/pgequiv/gmn/graph"
	"github.com/pgequiv/pgequiv/gmn/plangraph"
)

// Options configure training. Zero fields take the defaults in brackets.
type Options struct {
	Seed uint64
	// Model is the network configuration; NumTypes is set to
	// plangraph.NumTypes.
	Model gmn.Config
	// Epochs of supervised pair training [8].
	Epochs int
	// Batch is the pair mini-batch size [32].
	Batch int
	// LR is Adam's learning rate [1e-3]; ClipNorm the gradient clip [5].
	LR, ClipNorm float64
	// Pretrain is the number of GraphCL contrastive steps on single-query
	// graphs before supervised training [0]; PretrainBatch their batch
	// size [16].
	Pretrain, PretrainBatch int
	// RealRepeat is how often each real pair appears per epoch [2].
	RealRepeat int
	// Synth bounds synthetic pairs; NoSynth turns them (and the
	// transitive pairs) off.
	Synth   SynthOptions
	NoSynth bool
	// Workers is the number of goroutines for training and scoring
	// [runtime.NumCPU()]. Results are reproducible for a given value.
	Workers int
	// Log, when set, receives progress lines.
	Log func(format string, args ...any)
}

func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.Epochs, 8)
	def(&o.Batch, 32)
	def(&o.PretrainBatch, 16)
	def(&o.RealRepeat, 2)
	def(&o.Workers, runtime.NumCPU())
	if o.LR == 0 {
		o.LR = 1e-3
	}
	if o.ClipNorm == 0 {
		o.ClipNorm = 5
	}
	o.Model.NumTypes = plangraph.NumTypes
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	return o
}

// History records a training run.
type History struct {
	PretrainLoss []float64 // per contrastive step
	EpochLoss    []float64 // mean training loss per epoch
	EpochAUC     []float64 // held-out AUC after each epoch (when evaluated)
	Counts       map[string]int
	TrainPairs   int
	Duration     time.Duration
}

func examples(items []Item) []gmn.Example {
	out := make([]gmn.Example, len(items))
	for i, it := range items {
		out[i] = it.Example()
	}
	return out
}

// TrainingSet returns the pairs a model is trained on: the real pairs,
// the transitive pairs between their candidates, and synthetic rewrites of
// queries (all from the given, training-only data), with the count of each
// kind.
func TrainingSet(real []Item, queries []*Query, opts Options, rng *rand.Rand) ([]Item, map[string]int) {
	counts := map[string]int{"real": len(real)}
	all := append([]Item(nil), real...)
	if opts.NoSynth {
		return all, counts
	}
	for _, it := range Transitive(real) {
		if reflect.DeepEqual(it.A.G, it.B.G) {
			continue
		}
		all = append(all, it)
		counts[it.Kind]++
	}
	syn, sc := Synthesize(queries, opts.Synth, rng)
	for k, v := range sc {
		counts[k] = v
	}
	return append(all, syn...), counts
}

// Fit trains a new model on the real pairs plus pairs derived from them
// and from queries. When test is non-empty the held-out AUC is recorded
// after every epoch.
func Fit(ctx context.Context, real []Item, queries []*Query, test []Item, opts Options) (*gmn.Model, *History, error) {
	opts = opts.withDefaults()
	start := time.Now()
	rng := rand.New(rand.NewPCG(opts.Seed, 0x9e3779b97f4a7c15))
	m, err := gmn.New(opts.Model, rng)
	if err != nil {
		return nil, nil, err
	}
	tr, err := gmn.NewTrainer(m, gmn.TrainConfig{LR: opts.LR, ClipNorm: opts.ClipNorm, Workers: opts.Workers})
	if err != nil {
		return nil, nil, err
	}
	items, counts := TrainingSet(real, queries, opts, rng)
	h := &History{Counts: counts}
	if len(items) == 0 {
		return nil, nil, ErrNoData
	}

	// GraphCL pre-training on single-query graphs.
	if opts.Pretrain > 0 && len(queries) >= 2 {
		graphs := make([]*graph.Graph, len(queries))
		for i, q := range queries {
			graphs[i] = q.Prog.G
		}
		batch := make([]*graph.Graph, opts.PretrainBatch)
		for s := 0; s < opts.Pretrain; s++ {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
			for i := range batch {
				batch[i] = graphs[rng.IntN(len(graphs))]
			}
			l, err := tr.ContrastiveStep(batch, rng)
			if err != nil {
				return nil, nil, fmt.Errorf("contrastive step %d: %w", s, err)
			}
			h.PretrainLoss = append(h.PretrainLoss, l)
		}
		opts.Log("pretrain: %d steps, loss %.4f → %.4f", opts.Pretrain, h.PretrainLoss[0], h.PretrainLoss[len(h.PretrainLoss)-1])
	}

	exs := examples(items)
	var realIdx []int
	for i, it := range items {
		if it.Kind == "real" {
			realIdx = append(realIdx, i)
		}
	}
	order := make([]int, 0, len(exs)+(opts.RealRepeat-1)*len(realIdx))
	batch := make([]gmn.Example, 0, opts.Batch)
	for ep := 0; ep < opts.Epochs; ep++ {
		order = order[:0]
		for i := range exs {
			order = append(order, i)
		}
		for r := 1; r < opts.RealRepeat; r++ {
			order = append(order, realIdx...)
		}
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		sum, n := 0.0, 0
		for lo := 0; lo < len(order); lo += opts.Batch {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
			batch = batch[:0]
			for _, i := range order[lo:min(lo+opts.Batch, len(order))] {
				batch = append(batch, exs[i])
			}
			l, err := tr.PairStep(batch)
			if err != nil {
				return nil, nil, fmt.Errorf("epoch %d: %w", ep, err)
			}
			sum += l * float64(len(batch))
			n += len(batch)
		}
		h.EpochLoss = append(h.EpochLoss, sum/float64(n))
		line := fmt.Sprintf("epoch %d: loss %.4f", ep+1, sum/float64(n))
		if len(test) > 0 {
			auc, _, err := Evaluate(m, test, opts.Workers)
			if err != nil {
				return nil, nil, err
			}
			h.EpochAUC = append(h.EpochAUC, auc)
			line += fmt.Sprintf(", held-out AUC %.4f", auc)
		}
		opts.Log("%s (%s)", line, time.Since(start).Round(time.Second))
	}
	h.TrainPairs = len(exs)
	h.Duration = time.Since(start)
	return m, h, nil
}

// Score returns the model's similarity for each item, computed on workers
// goroutines; the result does not depend on workers.
func Score(m *gmn.Model, items []Item, workers int) ([]float64, error) {
	out := make([]float64, len(items))
	errs := make([]error, len(items))
	var wg sync.WaitGroup
	workers = max(1, min(workers, len(items)))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(items); i += workers {
				it := items[i]
				out[i], errs[i] = m.Score(it.A.G, it.B.G, plangraph.Seeds(it.A, it.B))
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
	}
	return out, nil
}

// Evaluate returns the AUC of the model's scores on items and the scores.
func Evaluate(m *gmn.Model, items []Item, workers int) (float64, []float64, error) {
	scores, err := Score(m, items, workers)
	if err != nil {
		return 0, nil, err
	}
	labels := make([]bool, len(items))
	for i, it := range items {
		labels[i] = it.Label >= 0.5
	}
	auc, err := metrics.AUC(scores, labels)
	return auc, scores, err
}

// MedianScoreTime scores the items one at a time on the calling goroutine
// and returns the median time per pair, seeds included.
func MedianScoreTime(m *gmn.Model, items []Item) (time.Duration, error) {
	if len(items) == 0 {
		return 0, ErrNoData
	}
	d := make([]time.Duration, len(items))
	for i, it := range items {
		st := time.Now()
		if _, err := m.Score(it.A.G, it.B.G, plangraph.Seeds(it.A, it.B)); err != nil {
			return 0, err
		}
		d[i] = time.Since(st)
	}
	slices.Sort(d)
	return d[len(d)/2], nil
}

// FoldResult is one cross-validation fold.
type FoldResult struct {
	Fold    int
	TestDBs []string
	Train   int // real training pairs
	Test    int // held-out pairs
	AUC     float64
	// MedianScore is the median time to score one held-out pair on one
	// goroutine (programs already built).
	MedianScore time.Duration
	History     *History
}

// CVResult is a cross-validation run.
type CVResult struct {
	Folds   []FoldResult
	MeanAUC float64
	// MedianScore is the median over folds of FoldResult.MedianScore.
	MedianScore time.Duration
	Duration    time.Duration
	// OutOfFold maps each real pair's id to the score of the fold model
	// that never saw its database: what a combiner is fit on.
	OutOfFold map[string]float64
}

// CrossValidate runs db-grouped k-fold cross-validation: no database has
// pairs in both the training and the test side of a fold, and synthetic
// pairs come from the training side's queries only.
func CrossValidate(ctx context.Context, c *Corpus, k int, opts Options) (*CVResult, error) {
	start := time.Now()
	fold, err := c.Folds(k)
	if err != nil {
		return nil, err
	}
	res := &CVResult{OutOfFold: map[string]float64{}}
	log := opts.Log
	if log == nil {
		log = func(string, ...any) {}
	}
	for f := 0; f < k; f++ {
		train, test, trainQ := c.Split(fold, f)
		var dbs []string
		for db, i := range fold {
			if i == f {
				dbs = append(dbs, db)
			}
		}
		sort.Strings(dbs)
		log("fold %d: test dbs %v, %d train / %d test pairs", f+1, dbs, len(train), len(test))
		o := opts
		o.Seed = opts.Seed + uint64(f)
		m, h, err := Fit(ctx, train, trainQ, test, o)
		if err != nil {
			return nil, fmt.Errorf("fold %d: %w", f+1, err)
		}
		auc, scores, err := Evaluate(m, test, o.withDefaults().Workers)
		if err != nil {
			return nil, fmt.Errorf("fold %d: %w", f+1, err)
		}
		for i, it := range test {
			if it.ID != "" {
				res.OutOfFold[it.ID] = scores[i]
			}
		}
		med, err := MedianScoreTime(m, test)
		if err != nil {
			return nil, fmt.Errorf("fold %d: %w", f+1, err)
		}
		log("fold %d: AUC %.4f, median score %s/pair", f+1, auc, med)
		res.Folds = append(res.Folds, FoldResult{Fold: f + 1, TestDBs: dbs, Train: len(train), Test: len(test),
			AUC: auc, MedianScore: med, History: h})
		res.MeanAUC += auc / float64(k)
	}
	meds := make([]time.Duration, len(res.Folds))
	for i, f := range res.Folds {
		meds[i] = f.MedianScore
	}
	slices.Sort(meds)
	res.MedianScore = meds[len(meds)/2]
	res.Duration = time.Since(start)
	return res, nil
}
