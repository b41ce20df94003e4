package autodiff

import (
	"math"
)

// SoftmaxRows returns the softmax of each row of a.
func (t *Tape) SoftmaxRows(a *Node) *Node {
	t.check(a)
	r, c := a.Dims()
	out := t.allocDirty(r, c, a.needs)
	o, x := raw(out.Val), raw(a.Val)
	for i := 0; i < r; i++ {
		xi, oi := x[i*c:(i+1)*c], o[i*c:(i+1)*c]
		m := math.Inf(-1)
		for _, v := range xi {
			m = max(m, v)
		}
		s := 0.0
		for j, v := range xi {
			e := math.Exp(v - m)
			oi[j] = e
			s += e
		}
		for j := range oi {
			oi[j] /= s
		}
	}
	if out.needs {
		t.record(out, func() {
			g, ga := raw(out.grad), raw(t.gradOf(a))
			for i := 0; i < r; i++ {
				gi, oi, gai := g[i*c:(i+1)*c], o[i*c:(i+1)*c], ga[i*c:(i+1)*c]
				dot := 0.0
				for j, v := range gi {
					dot += v * oi[j]
				}
				for j, v := range gi {
					gai[j] += oi[j] * (v - dot)
				}
			}
		})
	}
	return out
}

// SumRows returns the 1×c row of column sums of a.
func (t *Tape) SumRows(a *Node) *Node {
	t.check(a)
	r, c := a.Dims()
	out := t.alloc(1, c, a.needs)
	o, x := raw(out.Val), raw(a.Val)
	for i := 0; i < r; i++ {
		for j, v := range x[i*c : (i+1)*c] {
			o[j] += v
		}
	}
	if out.needs {
		t.record(out, func() {
			g, ga := raw(out.grad), raw(t.gradOf(a))
			for i := 0; i < r; i++ {
				gi := ga[i*c : (i+1)*c]
				for j, v := range g {
					gi[j] += v
				}
			}
		})
	}
	return out
}

// SumAll returns the 1×1 sum of every element of a.
func (t *Tape) SumAll(a *Node) *Node {
	t.check(a)
	out := t.alloc(1, 1, a.needs)
	s := 0.0
	for _, v := range raw(a.Val) {
		s += v
	}
	raw(out.Val)[0] = s
	if out.needs {
		t.record(out, func() {
			g := raw(out.grad)[0]
			ga := raw(t.gradOf(a))
			for i := range ga {
				ga[i] += g
			}
		})
	}
	return out
}

// SqDist returns the 1×1 squared Euclidean distance Σ(a−b)² between two
// same-shape matrices (usually 1×d graph vectors).
func (t *Tape) SqDist(a, b *Node) *Node {
	t.check(a, b)
	sameShape(a, b)
	out := t.alloc(1, 1, a.needs || b.needs)
	x, y := raw(a.Val), raw(b.Val)
	s := 0.0
	for i, v := range x {
		d := v - y[i]
		s += d * d
	}
	raw(out.Val)[0] = s
	if out.needs {
		t.record(out, func() {
			g := raw(out.grad)[0]
			if a.needs {
				ga := raw(t.gradOf(a))
				for i, v := range x {
					ga[i] += 2 * g * (v - y[i])
				}
			}
			if b.needs {
				gb := raw(t.gradOf(b))
				for i, v := range x {
					gb[i] -= 2 * g * (v - y[i])
				}
			}
		})
	}
	return out
}

// L2NormalizeRows divides each row of a by sqrt(‖row‖² + eps).
func (t *Tape) L2NormalizeRows(a *Node, eps float64) *Node {
	t.check(a)
	r, c := a.Dims()
	out := t.allocDirty(r, c, a.needs)
	o, x := raw(out.Val), raw(a.Val)
	norms := make([]float64, r)
	for i := 0; i < r; i++ {
		s := eps
		for _, v := range x[i*c : (i+1)*c] {
			s += v * v
		}
		norms[i] = math.Sqrt(s)
		for j := i * c; j < (i+1)*c; j++ {
			o[j] = x[j] / norms[i]
		}
	}
	if out.needs {
		t.record(out, func() {
			g, ga := raw(out.grad), raw(t.gradOf(a))
			for i := 0; i < r; i++ {
				dot := 0.0
				for j := i * c; j < (i+1)*c; j++ {
					dot += g[j] * o[j]
				}
				for j := i * c; j < (i+1)*c; j++ {
					ga[j] += (g[j] - o[j]*dot) / norms[i]
				}
			}
		})
	}
	return out
}
