package gmn

import (
	"context"
	"fmt"

	"github.com/pgequiv/pgequiv/gmn/graph"
)

// pairInput is a pair of graphs flattened into index lists over the merged
// node numbering (graph a's nodes first, then b's). Its slices are reused
// between pairs.
type pairInput struct {
	n1, n   int
	types   []int
	content []int // merged node index of each content node
	graphID []int // 0 for a's nodes, 1 for b's

	// n-gram encoder: one row per gram occurrence
	gramIdx []int
	gramSeg []int
	gramW   []float64

	// CNN encoder: one-hot convolution as gather (row q·128+char of the
	// input kernel) and scatter (to position row content·CNNLen+p)
	charIdx []int
	charPos []int
	posSeg  []int     // position row → content index
	posW    []float64 // 1/CNNLen per content node

	msgDst, msgSrc, msgType []int
	inDeg                   []float64 // messages received per node
	pe                      []float64 // n×PosSteps, row-major
	pw                      graph.PosWorkspace

	// h0, when set, holds precomputed input node states (n×Hidden,
	// row-major) and forward skips the encoders.
	h0 []float64
	// skipEncoders leaves the content-encoder inputs empty (set when h0
	// will be supplied).
	skipEncoders bool
	// ctx, when set, is polled before each propagation step; forward
	// stops early and records its error in err.
	ctx context.Context
	err error
}

func (p *pairInput) reset() {
	p.types = p.types[:0]
	p.content = p.content[:0]
	p.graphID = p.graphID[:0]
	p.gramIdx, p.gramSeg, p.gramW = p.gramIdx[:0], p.gramSeg[:0], p.gramW[:0]
	p.charIdx, p.charPos, p.posSeg, p.posW = p.charIdx[:0], p.charPos[:0], p.posSeg[:0], p.posW[:0]
	p.msgDst, p.msgSrc, p.msgType = p.msgDst[:0], p.msgSrc[:0], p.msgType[:0]
	p.inDeg = p.inDeg[:0]
	p.pe = p.pe[:0]
	p.h0 = nil
	p.skipEncoders = false
	p.ctx, p.err = nil, nil
}

// gramHash is FNV-1a over the gram's bytes, seeded with its length.
func gramHash(s []byte, n int) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	h ^= uint64(n)
	h *= prime
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= prime
	}
	return h
}

// addGrams appends the hashed 1–3-grams of "^text$" for content node seg.
func (m *Model) addGrams(p *pairInput, text string, seg int) {
	// Walk the virtual string "^" + text + "$" without allocating it.
	l := len(text) + 2
	at := func(i int) byte {
		switch i {
		case 0:
			return '^'
		case l - 1:
			return '$'
		}
		return text[i-1]
	}
	start := len(p.gramIdx)
	var buf [3]byte
	for n := 1; n <= 3; n++ {
		for i := 0; i+n <= l; i++ {
			for j := 0; j < n; j++ {
				buf[j] = at(i + j)
			}
			h := gramHash(buf[:n], n)
			p.gramIdx = append(p.gramIdx, int(h%uint64(m.cfg.NGramBuckets)))
			p.gramSeg = append(p.gramSeg, seg)
		}
	}
	w := 1 / float64(len(p.gramIdx)-start)
	for i := start; i < len(p.gramIdx); i++ {
		p.gramW = append(p.gramW, w)
	}
}

// addChars appends the sparse one-hot convolution inputs for content node seg.
func (m *Model) addChars(p *pairInput, text string, seg int) {
	L, k := m.cfg.CNNLen, m.cfg.CNNKernel
	half := k / 2
	n := min(len(text), L)
	for pos := 0; pos < L; pos++ {
		for q := 0; q < k; q++ {
			src := pos - half + q
			if src < 0 || src >= n {
				continue
			}
			ch := int(text[src])
			if ch >= asciiSize {
				ch = asciiSize - 1
			}
			p.charIdx = append(p.charIdx, q*asciiSize+ch)
			p.charPos = append(p.charPos, seg*L+pos)
		}
		p.posSeg = append(p.posSeg, seg)
	}
	p.posW = append(p.posW, 1/float64(L))
}

func (m *Model) addGraph(p *pairInput, g *graph.Graph, off, id int) {
	for i, nd := range g.Nodes {
		p.types = append(p.types, nd.Type)
		p.graphID = append(p.graphID, id)
		if nd.Kind != graph.Content || p.skipEncoders {
			continue
		}
		seg := len(p.content)
		p.content = append(p.content, off+i)
		switch m.cfg.Encoder {
		case EncoderNGram:
			m.addGrams(p, nd.Text, seg)
		case EncoderCNN:
			m.addChars(p, nd.Text, seg)
		}
	}
	for _, e := range g.Edges {
		u, v, et := off+e.From, off+e.To, int(e.Type)
		p.msgDst = append(p.msgDst, v, u)
		p.msgSrc = append(p.msgSrc, u, v)
		p.msgType = append(p.msgType, et, graph.NumEdgeTypes+et)
	}
}

// prepare fills p from a pair. typeLimit bounds the type ids (NumTypes for
// public input, NumTypes+1 when masked graphs are allowed).
func (m *Model) prepare(p *pairInput, a, b *graph.Graph, seeds []graph.Pair, typeLimit int) error {
	return m.prepareInput(p, a, b, seeds, typeLimit, true)
}

// prepareInput is prepare; without encode, the content-encoder inputs are
// left out because the caller supplies the input node states (h0).
func (m *Model) prepareInput(p *pairInput, a, b *graph.Graph, seeds []graph.Pair, typeLimit int, encode bool) error {
	if err := a.Validate(typeLimit); err != nil {
		return fmt.Errorf("%w: first graph: %w", ErrGraph, err)
	}
	if err := b.Validate(typeLimit); err != nil {
		return fmt.Errorf("%w: second graph: %w", ErrGraph, err)
	}
	p.reset()
	p.skipEncoders = !encode
	p.n1, p.n = len(a.Nodes), len(a.Nodes)+len(b.Nodes)
	if k := p.n * m.cfg.PosSteps; cap(p.pe) < k {
		p.pe = make([]float64, k)
	} else {
		p.pe = p.pe[:k]
	}
	if err := p.pw.Pair(p.pe, a, b, seeds, m.cfg.PosSteps); err != nil {
		return fmt.Errorf("%w: %w", ErrGraph, err)
	}
	m.addGraph(p, a, 0, 0)
	m.addGraph(p, b, p.n1, 1)
	for range p.n {
		p.inDeg = append(p.inDeg, 0)
	}
	for _, v := range p.msgDst {
		p.inDeg[v]++
	}
	return nil
}
