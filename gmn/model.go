// Package gmn is the graph matching network that scores whether two
// program graphs (normalized SQL plans) are equivalent.
//
// The network follows Li et al. 2019 (graph matching networks) as extended
// by FuncEvalGMN: typed node embeddings, a string encoder for content
// nodes, T propagation steps each combining inner messages over typed edges
// (both directions, separate edge-type embeddings) with cross-graph
// attention computed from the node states and a random-walk positional
// encoding of the merged pair graph, a GRU update, and a gated-sum readout.
// The similarity of a pair is exp(−‖h_G1 − h_G2‖²/τ) ∈ (0, 1].
//
// A Model is safe for concurrent Score calls. Training (Trainer) writes the
// weights and must not overlap with Score on the same Model.
//
// Typical use:
//
//	m, err := gmn.New(gmn.Config{NumTypes: n}, rand.New(rand.NewPCG(seed, 0)))
//	s, err := m.Score(a, b, graph.ContentSeeds(a, b)) // a, b *graph.Graph
//
//	tr, err := gmn.NewTrainer(m, gmn.TrainConfig{LR: 1e-3, Workers: runtime.NumCPU()})
//	loss, err := tr.ContrastiveStep(unlabelled, rng)  // GraphCL pre-training
//	loss, err = tr.PairStep([]gmn.Example{{A: a, B: b, Seeds: seeds, Label: 1}})
//
//	err = m.Save(w); m2, err := gmn.Load(r)
package gmn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	ad "github.com/pgequiv/pgequiv/gmn/autodiff"
	"github.com/pgequiv/pgequiv/gmn/graph"
)

// asciiSize is the width of the one-hot character alphabet; bytes ≥ 128
// map to 127.
const asciiSize = 128

type linear struct{ w, b *ad.Param }

func newLinear(s *ad.ParamSet, name string, in, out int, rng *rand.Rand) linear {
	l := linear{w: s.New(name+".W", in, out), b: s.New(name+".b", 1, out)}
	ad.GlorotInit(l.w, rng)
	return l
}

func (l linear) apply(t *ad.Tape, x *ad.Node) *ad.Node { return t.Linear(x, l.w, l.b) }

// Model is a graph matching network. Create one with New or Load.
type Model struct {
	cfg Config
	ps  ad.ParamSet

	typeEmb *ad.Param // (NumTypes+1)×Hidden; last row is the mask token

	// n-gram content encoder
	gramEmb *ad.Param // NGramBuckets×Hidden
	gramOut linear    // Hidden→Hidden

	// CNN content encoder
	cnnIn     *ad.Param // (CNNKernel·128)×CNNChannels; one-hot conv evaluated sparsely
	cnnInB    *ad.Param
	cnnBlocks [][2]linear // (CNNKernel·C)→C each
	cnnOut    linear      // C→Hidden

	edgeEmb *ad.Param // (2·NumEdgeTypes)×EdgeDim; row t forward, NumEdgeTypes+t reverse
	msgNode *ad.Param // Hidden×2Hidden: first message layer, [receiving | sending] node parts
	msgEdge *ad.Param // EdgeDim×Hidden: edge part
	msgB    *ad.Param // 1×Hidden
	msgOut  linear    // Hidden→Hidden

	posIn   linear // PosSteps→PosDim
	posStep linear // PosDim→PosDim, p ← tanh(p·W + b) after each step
	attn1   linear // (Hidden+PosDim)→Hidden
	attn2   linear // Hidden→Hidden

	gru *ad.GRU // input 2·Hidden, state Hidden

	gate    linear // Hidden→GraphDim
	value   linear // Hidden→GraphDim
	readout [2]linear

	pool sync.Pool // *scratch
}

// New returns a model with weights initialised from rng.
func New(cfg Config, rng *rand.Rand) (*Model, error) {
	if rng == nil {
		return nil, ErrNilRand
	}
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	m := &Model{cfg: cfg}
	s := &m.ps
	d := cfg.Hidden
	m.typeEmb = s.New("type_emb", cfg.NumTypes+1, d)
	ad.GlorotInit(m.typeEmb, rng)
	switch cfg.Encoder {
	case EncoderNGram:
		m.gramEmb = s.New("ngram.emb", cfg.NGramBuckets, d)
		ad.GlorotInit(m.gramEmb, rng)
		m.gramOut = newLinear(s, "ngram.out", d, d, rng)
	case EncoderCNN:
		c, k := cfg.CNNChannels, cfg.CNNKernel
		m.cnnIn = s.New("cnn.in.W", k*asciiSize, c)
		m.cnnInB = s.New("cnn.in.b", 1, c)
		ad.GlorotInit(m.cnnIn, rng)
		for i := 0; i < cfg.CNNBlocks; i++ {
			m.cnnBlocks = append(m.cnnBlocks, [2]linear{
				newLinear(s, fmt.Sprintf("cnn.block%d.conv1", i), k*c, c, rng),
				newLinear(s, fmt.Sprintf("cnn.block%d.conv2", i), k*c, c, rng),
			})
		}
		m.cnnOut = newLinear(s, "cnn.out", c, d, rng)
	}
	m.edgeEmb = s.New("edge_emb", 2*graph.NumEdgeTypes, cfg.EdgeDim)
	ad.GlorotInit(m.edgeEmb, rng)
	m.msgNode = s.New("msg.node", d, 2*d)
	m.msgEdge = s.New("msg.edge", cfg.EdgeDim, d)
	m.msgB = s.New("msg.b", 1, d)
	// Glorot bound of the unfused (2d+EdgeDim)×d first layer.
	for _, p := range []*ad.Param{m.msgNode, m.msgEdge} {
		a := math.Sqrt(6 / float64(2*d+cfg.EdgeDim+d))
		w := p.Val.RawMatrix().Data
		for i := range w {
			w[i] = (2*rng.Float64() - 1) * a
		}
	}
	m.msgOut = newLinear(s, "msg.out", d, d, rng)
	m.posIn = newLinear(s, "pos.in", cfg.PosSteps, cfg.PosDim, rng)
	m.posStep = newLinear(s, "pos.step", cfg.PosDim, cfg.PosDim, rng)
	m.attn1 = newLinear(s, "attn.1", d+cfg.PosDim, d, rng)
	m.attn2 = newLinear(s, "attn.2", d, d, rng)
	m.gru = ad.NewGRU(s, "gru", 2*d, d, rng)
	m.gate = newLinear(s, "readout.gate", d, cfg.GraphDim, rng)
	m.value = newLinear(s, "readout.value", d, cfg.GraphDim, rng)
	m.readout[0] = newLinear(s, "readout.mlp1", cfg.GraphDim, cfg.GraphDim, rng)
	m.readout[1] = newLinear(s, "readout.mlp2", cfg.GraphDim, cfg.GraphDim, rng)
	m.pool.New = func() any { return &scratch{tape: ad.NewTape(false)} }
	return m, nil
}

// Config returns the model's configuration with defaults filled in.
func (m *Model) Config() Config { return m.cfg }

// MaskType is the type id used for masked attributes (= NumTypes).
func (m *Model) MaskType() int { return m.cfg.NumTypes }

// NumWeights is the number of trainable scalars.
func (m *Model) NumWeights() int { return m.ps.NumWeights() }

// Params exposes the parameter set (for optimisers and tests).
func (m *Model) Params() *ad.ParamSet { return &m.ps }
