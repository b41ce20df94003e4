package autodiff

import "math/rand/v2"

// GRU holds the weights of a gated recurrent unit cell with input width In
// and state width H:
//
//	z  = σ(x·Wz + h·Uz + bz)
//	r  = σ(x·Wr + h·Ur + br)
//	n  = tanh(x·Wn + (r⊙h)·Un + bn)
//	h' = n + z⊙(h − n)        (= (1−z)⊙n + z⊙h)
type GRU struct {
	Wz, Wr, Wn *Param // In×H
	Uz, Ur, Un *Param // H×H
	Bz, Br, Bn *Param // 1×H
}

// NewGRU registers a GRU's parameters in s under the given name prefix and
// initialises them from rng (Glorot weights, zero biases).
func NewGRU(s *ParamSet, name string, in, h int, rng *rand.Rand) *GRU {
	g := &GRU{
		Wz: s.New(name+".Wz", in, h), Wr: s.New(name+".Wr", in, h), Wn: s.New(name+".Wn", in, h),
		Uz: s.New(name+".Uz", h, h), Ur: s.New(name+".Ur", h, h), Un: s.New(name+".Un", h, h),
		Bz: s.New(name+".bz", 1, h), Br: s.New(name+".br", 1, h), Bn: s.New(name+".bn", 1, h),
	}
	for _, p := range []*Param{g.Wz, g.Wr, g.Wn, g.Uz, g.Ur, g.Un} {
		GlorotInit(p, rng)
	}
	return g
}

// GRU applies the cell to state h (N×H) and input x (N×In), row by row.
func (t *Tape) GRU(g *GRU, h, x *Node) *Node {
	gate := func(w, u, b *Param, hh *Node) *Node {
		return t.AddRow(t.Add(t.MatMul(x, t.Param(w)), t.MatMul(hh, t.Param(u))), t.Param(b))
	}
	z := t.Sigmoid(gate(g.Wz, g.Uz, g.Bz, h))
	r := t.Sigmoid(gate(g.Wr, g.Ur, g.Br, h))
	n := t.Tanh(gate(g.Wn, g.Un, g.Bn, t.Mul(r, h)))
	return t.Add(n, t.Mul(z, t.Sub(h, n)))
}
