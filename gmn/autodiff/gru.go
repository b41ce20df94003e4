package autodiff

import "math/rand/v2"

// GRU holds the weights of a gated recurrent unit cell with input width In
// and state width H. The three input projections and the two state
// projections that do not depend on the reset gate are fused so each step
// runs three matrix products:
//
//	[xz xr xn] = x·Wx + bx                      Wx: In×3H, bx: 1×3H
//	[z r]      = σ([xz xr] + h·Uzr)             Uzr: H×2H
//	n          = tanh(xn + (r⊙h)·Un)            Un: H×H
//	h'         = n + z⊙(h − n)                  (= (1−z)⊙n + z⊙h)
type GRU struct {
	Wx, Bx, Uzr, Un *Param
	in, h           int
}

// NewGRU registers a GRU's parameters in s under the given name prefix and
// initialises them from rng (Glorot per gate block, zero biases).
func NewGRU(s *ParamSet, name string, in, h int, rng *rand.Rand) *GRU {
	g := &GRU{
		Wx: s.New(name+".Wx", in, 3*h), Bx: s.New(name+".bx", 1, 3*h),
		Uzr: s.New(name+".Uzr", h, 2*h), Un: s.New(name+".Un", h, h),
		in: in, h: h,
	}
	// Glorot bounds of the unfused in×h and h×h blocks.
	fill := func(p *Param, fanIn, fanOut int) {
		a := sqrt(6 / float64(fanIn+fanOut))
		d := raw(p.Val)
		for i := range d {
			d[i] = (2*rng.Float64() - 1) * a
		}
	}
	fill(g.Wx, in, h)
	fill(g.Uzr, h, h)
	fill(g.Un, h, h)
	return g
}

// GRU applies the cell to state h (N×H) and input x (N×In), row by row.
func (t *Tape) GRU(g *GRU, h, x *Node) *Node {
	H := g.h
	xw := t.AddRow(t.MatMul(x, t.Param(g.Wx)), t.Param(g.Bx))
	zr := t.Sigmoid(t.Add(t.SliceCols(xw, 0, 2*H), t.MatMul(h, t.Param(g.Uzr))))
	z, r := t.SliceCols(zr, 0, H), t.SliceCols(zr, H, 2*H)
	n := t.Tanh(t.Add(t.SliceCols(xw, 2*H, 3*H), t.MatMul(t.Mul(r, h), t.Param(g.Un))))
	return t.Add(n, t.Mul(z, t.Sub(h, n)))
}
