package autodiff

import (
	"math"
)

// Add returns a+b (same shape).
func (t *Tape) Add(a, b *Node) *Node { return t.addSub(a, b, 1) }

// Sub returns a−b (same shape).
func (t *Tape) Sub(a, b *Node) *Node { return t.addSub(a, b, -1) }

func (t *Tape) addSub(a, b *Node, s float64) *Node {
	t.check(a, b)
	sameShape(a, b)
	r, c := a.Dims()
	out := t.allocDirty(r, c, a.needs || b.needs)
	o, x, y := raw(out.Val), raw(a.Val), raw(b.Val)
	for i := range o {
		o[i] = x[i] + s*y[i]
	}
	if out.needs {
		t.record(out, func() {
			if a.needs {
				accum(t.gradOf(a), 1, out.grad)
			}
			if b.needs {
				accum(t.gradOf(b), s, out.grad)
			}
		})
	}
	return out
}

// Mul returns the elementwise product a⊙b.
func (t *Tape) Mul(a, b *Node) *Node {
	t.check(a, b)
	sameShape(a, b)
	r, c := a.Dims()
	out := t.allocDirty(r, c, a.needs || b.needs)
	o, x, y := raw(out.Val), raw(a.Val), raw(b.Val)
	for i := range o {
		o[i] = x[i] * y[i]
	}
	if out.needs {
		t.record(out, func() {
			g := raw(out.grad)
			if a.needs {
				ga := raw(t.gradOf(a))
				for i, v := range g {
					ga[i] += v * y[i]
				}
			}
			if b.needs {
				gb := raw(t.gradOf(b))
				for i, v := range g {
					gb[i] += v * x[i]
				}
			}
		})
	}
	return out
}

// AddRow returns a + 1·b, broadcasting the 1×c row b over a's rows.
func (t *Tape) AddRow(a, b *Node) *Node {
	t.check(a, b)
	r, c := a.Dims()
	if br, bc := b.Dims(); br != 1 || bc != c {
		panic(ErrShape)
	}
	out := t.allocDirty(r, c, a.needs || b.needs)
	o, x, y := raw(out.Val), raw(a.Val), raw(b.Val)
	for i := 0; i < r; i++ {
		oi, xi := o[i*c:(i+1)*c], x[i*c:(i+1)*c]
		for j := range oi {
			oi[j] = xi[j] + y[j]
		}
	}
	if out.needs {
		t.record(out, func() {
			g := raw(out.grad)
			if a.needs {
				accum(t.gradOf(a), 1, out.grad)
			}
			if b.needs {
				gb := raw(t.gradOf(b))
				for i := 0; i < r; i++ {
					for j, v := range g[i*c : (i+1)*c] {
						gb[j] += v
					}
				}
			}
		})
	}
	return out
}

// Scale returns s·a.
func (t *Tape) Scale(s float64, a *Node) *Node {
	t.check(a)
	r, c := a.Dims()
	out := t.allocDirty(r, c, a.needs)
	o, x := raw(out.Val), raw(a.Val)
	for i := range o {
		o[i] = s * x[i]
	}
	if out.needs {
		t.record(out, func() { accum(t.gradOf(a), s, out.grad) })
	}
	return out
}

// ScaleRows returns diag(w)·a: row i scaled by the constant w[i].
func (t *Tape) ScaleRows(a *Node, w []float64) *Node {
	t.check(a)
	r, c := a.Dims()
	if len(w) != r {
		panic(ErrShape)
	}
	out := t.allocDirty(r, c, a.needs)
	o, x := raw(out.Val), raw(a.Val)
	for i := 0; i < r; i++ {
		for j := i * c; j < (i+1)*c; j++ {
			o[j] = w[i] * x[j]
		}
	}
	if out.needs {
		t.record(out, func() {
			g, ga := raw(out.grad), raw(t.gradOf(a))
			for i := 0; i < r; i++ {
				for j := i * c; j < (i+1)*c; j++ {
					ga[j] += w[i] * g[j]
				}
			}
		})
	}
	return out
}

// unary applies f elementwise; df returns the derivative given input x and
// output y.
func (t *Tape) unary(a *Node, f func(float64) float64, df func(x, y float64) float64) *Node {
	t.check(a)
	r, c := a.Dims()
	out := t.allocDirty(r, c, a.needs)
	o, x := raw(out.Val), raw(a.Val)
	for i := range o {
		o[i] = f(x[i])
	}
	if out.needs {
		t.record(out, func() {
			g, ga := raw(out.grad), raw(t.gradOf(a))
			for i, v := range g {
				ga[i] += v * df(x[i], o[i])
			}
		})
	}
	return out
}

func relu(x float64) float64 {
	if x > 0 {
		return x
	}
	return 0
}
func drelu(x, _ float64) float64 {
	if x > 0 {
		return 1
	}
	return 0
}
func dtanh(_, y float64) float64 { return 1 - y*y }

// Sigmoid is the logistic function 1/(1+e^−x), stable for large |x|.
func Sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}
func dsigmoid(_, y float64) float64 { return y * (1 - y) }
func dexp(_, y float64) float64     { return y }

// ReLU returns max(a, 0) elementwise.
func (t *Tape) ReLU(a *Node) *Node { return t.unary(a, relu, drelu) }

// Tanh returns tanh(a) elementwise.
func (t *Tape) Tanh(a *Node) *Node { return t.unary(a, math.Tanh, dtanh) }

// Sigmoid returns σ(a) elementwise.
func (t *Tape) Sigmoid(a *Node) *Node { return t.unary(a, Sigmoid, dsigmoid) }

// Exp returns e^a elementwise.
func (t *Tape) Exp(a *Node) *Node { return t.unary(a, math.Exp, dexp) }
