package autodiff

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Sentinel panics raised by operations on malformed input.
var (
	ErrShape      = errors.New("gmn: dimension mismatch")
	ErrIndex      = errors.New("gmn: index out of range")
	ErrNotScalar  = errors.New("gmn: backward needs a 1×1 node")
	ErrForeign    = errors.New("gmn: node belongs to another tape or a stale pass")
	ErrNoGradTape = errors.New("gmn: backward on a tape built without gradients")
)

// Param is a trainable matrix. Its ID indexes Grads and optimiser state.
type Param struct {
	Name string
	Val  *mat.Dense
	id   int
}

// ID is the index of p in its ParamSet.
func (p *Param) ID() int { return p.id }

// ParamSet owns an ordered list of parameters.
type ParamSet struct {
	list []*Param
}

// New adds a zero r×c parameter.
func (s *ParamSet) New(name string, r, c int) *Param {
	p := &Param{Name: name, Val: mat.NewDense(r, c, nil), id: len(s.list)}
	s.list = append(s.list, p)
	return p
}

// Params returns the parameters in creation order. The slice must not be modified.
func (s *ParamSet) Params() []*Param { return s.list }

// NumWeights is the total number of scalars over all parameters.
func (s *ParamSet) NumWeights() int {
	n := 0
	for _, p := range s.list {
		r, c := p.Val.Dims()
		n += r * c
	}
	return n
}

// NewGrads returns a zeroed gradient accumulator shaped like s.
func (s *ParamSet) NewGrads() Grads {
	g := make(Grads, len(s.list))
	for i, p := range s.list {
		r, c := p.Val.Dims()
		g[i] = mat.NewDense(r, c, nil)
	}
	return g
}

// Grads holds one gradient matrix per parameter, indexed by Param.ID.
type Grads []*mat.Dense

// Zero clears every gradient.
func (g Grads) Zero() {
	for _, m := range g {
		clear(m.RawMatrix().Data)
	}
}

// AddScaled performs g += s·o. Shapes must match.
func (g Grads) AddScaled(s float64, o Grads) {
	if len(g) != len(o) {
		panic(ErrShape)
	}
	for i := range g {
		a, b := g[i].RawMatrix().Data, o[i].RawMatrix().Data
		if len(a) != len(b) {
			panic(ErrShape)
		}
		for j, v := range b {
			a[j] += s * v
		}
	}
}

func sqrt(x float64) float64 { return math.Sqrt(x) }

// GlorotInit fills p with U(−a, a), a = sqrt(6/(rows+cols)), from rng.
func GlorotInit(p *Param, rng *rand.Rand) {
	r, c := p.Val.Dims()
	a := sqrt(6 / float64(r+c))
	d := p.Val.RawMatrix().Data
	for i := range d {
		d[i] = (2*rng.Float64() - 1) * a
	}
}

// Node is a value on a tape.
type Node struct {
	Val   *mat.Dense
	grad  *mat.Dense
	buf   *mat.Dense // arena storage owned by the tape, reused across Resets
	back  func()
	param *Param
	needs bool
	gen   uint64
	ggen  uint64
	tape  *Tape
}

// Dims returns the shape of the node's value.
func (n *Node) Dims() (r, c int) { return n.Val.Dims() }

// Scalar returns the value of a 1×1 node.
func (n *Node) Scalar() float64 {
	if r, c := n.Val.Dims(); r != 1 || c != 1 {
		panic(ErrNotScalar)
	}
	return n.Val.RawMatrix().Data[0]
}

// Grad returns the gradient computed by the last Backward, or nil if the
// node does not depend on a parameter.
func (n *Node) Grad() *mat.Dense {
	if n.ggen != n.tape.gen || n.grad == nil {
		return nil
	}
	return n.grad
}

// Tape records operations for reverse-mode differentiation. The zero value
// is not usable; call NewTape.
type Tape struct {
	grad   bool
	gen    uint64
	nodes  []*Node // creation order; arena, reused across Resets
	used   int
	params map[*Param]*Node // param leaves of this pass
}

// NewTape returns an empty tape. With grad false no backward closures are
// recorded, which makes forward-only (inference) passes cheaper.
func NewTape(grad bool) *Tape {
	return &Tape{grad: grad, gen: 1, params: make(map[*Param]*Node)}
}

// Reset forgets every node while keeping their buffers for reuse. Nodes
// obtained before Reset must not be used afterwards.
func (t *Tape) Reset() {
	t.gen++
	t.used = 0
	clear(t.params)
}

// GradEnabled reports whether the tape records gradients.
func (t *Tape) GradEnabled() bool { return t.grad }

func newMat(r, c int) *mat.Dense {
	m := &mat.Dense{}
	m.SetRawMatrix(blas64.General{Rows: r, Cols: c, Stride: max(c, 1), Data: make([]float64, r*c)})
	return m
}

// resize makes m an r×c contiguous matrix, reusing its storage if large
// enough. Reused storage is zeroed only when zero is set.
func resize(m *mat.Dense, r, c int, zero bool) *mat.Dense {
	if m == nil {
		return newMat(r, c)
	}
	d := m.RawMatrix().Data
	if cap(d) < r*c {
		d = make([]float64, r*c)
	} else {
		d = d[:r*c]
		if zero {
			clear(d)
		}
	}
	m.SetRawMatrix(blas64.General{Rows: r, Cols: c, Stride: max(c, 1), Data: d})
	return m
}

// alloc returns a fresh r×c zeroed node.
func (t *Tape) alloc(r, c int, needs bool) *Node { return t.allocZ(r, c, needs, true) }

// allocDirty returns a fresh r×c node whose contents are arbitrary; the
// caller must overwrite every element.
func (t *Tape) allocDirty(r, c int, needs bool) *Node { return t.allocZ(r, c, needs, false) }

func (t *Tape) allocZ(r, c int, needs, zero bool) *Node {
	if r < 0 || c < 0 {
		panic(ErrShape)
	}
	var n *Node
	if t.used < len(t.nodes) {
		n = t.nodes[t.used]
	} else {
		n = &Node{tape: t}
		t.nodes = append(t.nodes, n)
	}
	t.used++
	n.buf = resize(n.buf, r, c, zero)
	n.Val = n.buf
	n.back = nil
	n.param = nil
	n.needs = needs && t.grad
	n.gen = t.gen
	return n
}

func (t *Tape) check(ns ...*Node) {
	for _, n := range ns {
		if n.tape != t || n.gen != t.gen {
			panic(ErrForeign)
		}
	}
}

// Const copies m onto the tape as a constant (no gradient).
func (t *Tape) Const(m mat.Matrix) *Node {
	r, c := m.Dims()
	n := t.alloc(r, c, false)
	if r > 0 && c > 0 {
		n.Val.Copy(m)
	}
	return n
}

// ConstData wraps a row-major r×c slice as a constant, copying it.
func (t *Tape) ConstData(r, c int, data []float64) *Node {
	if len(data) != r*c {
		panic(ErrShape)
	}
	n := t.alloc(r, c, false)
	copy(n.Val.RawMatrix().Data, data)
	return n
}

// Param returns the leaf node for p on this tape. Repeated calls in the same
// pass return the same node.
func (t *Tape) Param(p *Param) *Node {
	if n, ok := t.params[p]; ok {
		return n
	}
	var n *Node
	if t.used < len(t.nodes) {
		n = t.nodes[t.used]
	} else {
		n = &Node{tape: t}
		t.nodes = append(t.nodes, n)
	}
	t.used++
	n.Val = p.Val
	n.back = nil
	n.param = p
	n.needs = t.grad
	n.gen = t.gen
	t.params[p] = n
	return n
}

// gradOf returns n's gradient buffer, zeroing it on first use in a pass.
func (t *Tape) gradOf(n *Node) *mat.Dense {
	if n.ggen != t.gen {
		r, c := n.Val.Dims()
		n.grad = resize(n.grad, r, c, true)
		n.ggen = t.gen
	}
	return n.grad
}

// record attaches a backward closure to out.
func (t *Tape) record(out *Node, f func()) {
	out.back = f
}

// Backward seeds loss (1×1) with gradient 1 and propagates.
func (t *Tape) Backward(loss *Node) {
	t.check(loss)
	if r, c := loss.Dims(); r != 1 || c != 1 {
		panic(ErrNotScalar)
	}
	t.BackwardFrom([]*Node{loss}, []*mat.Dense{mat.NewDense(1, 1, []float64{1})})
}

// BackwardFrom seeds each node with the matching gradient (added to
// whatever gradient it already has) and propagates through the tape.
func (t *Tape) BackwardFrom(nodes []*Node, seeds []*mat.Dense) {
	if !t.grad {
		panic(ErrNoGradTape)
	}
	if len(nodes) != len(seeds) {
		panic(ErrShape)
	}
	for i, n := range nodes {
		t.check(n)
		r, c := n.Dims()
		if sr, sc := seeds[i].Dims(); sr != r || sc != c {
			panic(ErrShape)
		}
		if !n.needs {
			continue
		}
		g := t.gradOf(n)
		g.Add(g, seeds[i])
	}
	for i := t.used - 1; i >= 0; i-- {
		n := t.nodes[i]
		if n.back != nil && n.ggen == t.gen {
			n.back()
		}
	}
}

// AddParamGrads adds the gradient of every parameter of s used in this pass
// into g (which must come from s.NewGrads).
func (t *Tape) AddParamGrads(s *ParamSet, g Grads) {
	if len(g) != len(s.list) {
		panic(ErrShape)
	}
	for id, p := range s.list {
		n, ok := t.params[p]
		if !ok || n.ggen != t.gen {
			continue
		}
		dst, src := g[id].RawMatrix().Data, n.grad.RawMatrix().Data
		if len(dst) != len(src) {
			panic(ErrShape)
		}
		for j, v := range src {
			dst[j] += v
		}
	}
}

// String describes the tape for debugging.
func (t *Tape) String() string {
	return fmt.Sprintf("autodiff.Tape{nodes: %d, grad: %v}", t.used, t.grad)
}
