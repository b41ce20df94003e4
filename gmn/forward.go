package gmn

import (
	"math"

	ad "github.com/pgequiv/pgequiv/gmn/autodiff"
)

// encodeContent returns the Nc×Hidden encodings of the content nodes.
func (m *Model) encodeContent(t *ad.Tape, p *pairInput) *ad.Node {
	nc := len(p.content)
	switch m.cfg.Encoder {
	case EncoderNGram:
		bag := t.ScaleRows(t.GatherRows(t.Param(m.gramEmb), p.gramIdx), p.gramW)
		return t.Tanh(m.gramOut.apply(t, t.ScatterSumRows(bag, p.gramSeg, nc)))
	default: // EncoderCNN
		L, k := m.cfg.CNNLen, m.cfg.CNNKernel
		// First convolution on the one-hot input, as gather + scatter.
		x := t.ScatterSumRows(t.GatherRows(t.Param(m.cnnIn), p.charIdx), p.charPos, nc*L)
		x = t.ReLU(t.AddRow(x, t.Param(m.cnnInB)))
		for _, blk := range m.cnnBlocks {
			y := t.ReLU(blk[0].apply(t, t.Im2Col1D(x, L, k)))
			y = blk[1].apply(t, t.Im2Col1D(y, L, k))
			x = t.ReLU(t.Add(x, y))
		}
		pooled := t.ScaleRows(t.ScatterSumRows(x, p.posSeg, nc), p.posW)
		return t.Tanh(m.cnnOut.apply(t, pooled))
	}
}

// initialStates returns the n×Hidden input node states h⁰: the operator
// type embedding plus, for content nodes, the string encoding. Each row
// depends on its own node only, which is what lets Embed cache them.
func (m *Model) initialStates(t *ad.Tape, p *pairInput) *ad.Node {
	h := t.GatherRows(t.Param(m.typeEmb), p.types)
	if len(p.content) > 0 {
		h = t.Add(h, t.ScatterSumRows(m.encodeContent(t, p), p.content, p.n))
	}
	return h
}

// forward runs the network on a prepared pair and returns the 2×GraphDim
// matrix of graph vectors (row 0: first graph, row 1: second).
func (m *Model) forward(t *ad.Tape, p *pairInput) *ad.Node {
	cfg := m.cfg
	n, n1 := p.n, p.n1
	var h *ad.Node
	if p.h0 != nil {
		h = t.ConstData(n, cfg.Hidden, p.h0)
	} else {
		h = m.initialStates(t, p)
	}
	pos := t.Tanh(m.posIn.apply(t, t.ConstData(n, cfg.PosSteps, p.pe)))
	// Edge-type part of the first message layer: one row per edge type.
	edge := t.MatMul(t.Param(m.edgeEmb), t.Param(m.msgEdge))
	invSqrtD := 1 / math.Sqrt(float64(cfg.Hidden))
	for step := 0; step < cfg.Steps; step++ {
		if p.ctx != nil {
			if p.err = p.ctx.Err(); p.err != nil {
				break
			}
		}
		// Inner messages m_v = Σ_u f(h_v, h_u, e_uv) with the two-layer MLP
		// f(x) = relu(x·W1 + b1)·W2 + b2. The first layer is split by input
		// block so it runs on node matrices, and the sum is taken before the
		// second (linear) layer: m_v = (Σ_u relu(·))·W2 + deg(v)·b2.
		hds := t.MatMul(h, t.Param(m.msgNode))
		hd, hs := t.SliceCols(hds, 0, cfg.Hidden), t.SliceCols(hds, cfg.Hidden, 2*cfg.Hidden)
		pre := t.Add(t.Add(t.GatherRows(hd, p.msgDst), t.GatherRows(hs, p.msgSrc)), t.GatherRows(edge, p.msgType))
		act := t.ScatterSumRows(t.ReLU(t.AddRow(pre, t.Param(m.msgB))), p.msgDst, n)
		agg := t.Add(t.MatMul(act, t.Param(m.msgOut.w)), t.MatMul(t.ConstData(n, 1, p.inDeg), t.Param(m.msgOut.b)))

		// Cross-graph attention on r = MLP(h ⊕ p):
		// μ_v = Σ_u a_{u→v}(r_v − r_u) = r_v − (A·R_other)_v.
		r := m.attn2.apply(t, t.ReLU(m.attn1.apply(t, t.ConcatCols(h, pos))))
		r1, r2 := t.SliceRows(r, 0, n1), t.SliceRows(r, n1, n)
		s := t.Scale(invSqrtD, t.MatMulNT(r1, r2))
		mu1 := t.Sub(r1, t.MatMul(t.SoftmaxRows(s), r2))
		mu2 := t.Sub(r2, t.MatMul(t.SoftmaxRows(t.Transpose(s)), r1))
		mu := t.ConcatRows(mu1, mu2)

		h = t.GRU(m.gru, h, t.ConcatCols(agg, mu))
		pos = t.Tanh(m.posStep.apply(t, pos))
	}
	// Gated-sum readout h_G = MLP(Σ_v σ(gate(h_v)) ⊙ value(h_v)).
	gated := t.Mul(t.Sigmoid(m.gate.apply(t, h)), m.value.apply(t, h))
	g := t.ScatterSumRows(gated, p.graphID, 2)
	return m.readout[1].apply(t, t.ReLU(m.readout[0].apply(t, g)))
}

// pairDist returns the 1×1 squared distance between the two graph vectors.
func pairDist(t *ad.Tape, vecs *ad.Node) *ad.Node {
	return t.SqDist(t.SliceRows(vecs, 0, 1), t.SliceRows(vecs, 1, 2))
}
