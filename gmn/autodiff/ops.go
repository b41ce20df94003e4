package autodiff

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

func sqrt(x float64) float64 { return math.Sqrt(x) }

func raw(m *mat.Dense) []float64 { return m.RawMatrix().Data }

// gemm computes c = op(a)·op(b) + beta·c. Shapes are the caller's job.
func gemm(ta, tb bool, a, b, c *mat.Dense, beta float64) {
	m, n := c.Dims()
	_, k := a.Dims()
	if ta {
		k, _ = a.Dims()
	}
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		if beta == 0 {
			clear(raw(c))
		}
		return
	}
	at, bt := blas.NoTrans, blas.NoTrans
	if ta {
		at = blas.Trans
	}
	if tb {
		bt = blas.Trans
	}
	ra, rc := a.RawMatrix(), c.RawMatrix()
	// gonum's Dgemm spawns goroutines once C spans ≥ 4 blocks of 64×64.
	// Scoring runs one pair per goroutine, so keep each product serial by
	// splitting tall products into row bands of at most 3 blocks.
	bn := (n + gemmBlock - 1) / gemmBlock
	band := gemmBlock * (3 / bn)
	if ta || band == 0 || m <= band {
		blas64.Gemm(at, bt, 1, ra, b.RawMatrix(), beta, rc)
		return
	}
	for i := 0; i < m; i += band {
		h := min(band, m-i)
		subA := blas64.General{Rows: h, Cols: ra.Cols, Stride: ra.Stride, Data: ra.Data[i*ra.Stride:]}
		subC := blas64.General{Rows: h, Cols: rc.Cols, Stride: rc.Stride, Data: rc.Data[i*rc.Stride:]}
		blas64.Gemm(at, bt, 1, subA, b.RawMatrix(), beta, subC)
	}
}

// gemmBlock is gonum's Dgemm block size.
const gemmBlock = 64

// MatMul returns a·b.
func (t *Tape) MatMul(a, b *Node) *Node {
	t.check(a, b)
	ar, ac := a.Dims()
	br, bc := b.Dims()
	if ac != br {
		panic(ErrShape)
	}
	out := t.allocDirty(ar, bc, a.needs || b.needs)
	gemm(false, false, a.Val, b.Val, out.Val, 0)
	if out.needs {
		t.record(out, func() {
			if a.needs {
				gemm(false, true, out.grad, b.Val, t.gradOf(a), 1)
			}
			if b.needs {
				gemm(true, false, a.Val, out.grad, t.gradOf(b), 1)
			}
		})
	}
	return out
}

// MatMulNT returns a·bᵀ.
func (t *Tape) MatMulNT(a, b *Node) *Node {
	t.check(a, b)
	ar, ac := a.Dims()
	br, bc := b.Dims()
	if ac != bc {
		panic(ErrShape)
	}
	out := t.allocDirty(ar, br, a.needs || b.needs)
	gemm(false, true, a.Val, b.Val, out.Val, 0)
	if out.needs {
		t.record(out, func() {
			if a.needs {
				gemm(false, false, out.grad, b.Val, t.gradOf(a), 1)
			}
			if b.needs {
				gemm(true, false, out.grad, a.Val, t.gradOf(b), 1)
			}
		})
	}
	return out
}

func sameShape(a, b *Node) {
	ar, ac := a.Dims()
	br, bc := b.Dims()
	if ar != br || ac != bc {
		panic(ErrShape)
	}
}

func accum(dst *mat.Dense, s float64, src *mat.Dense) {
	d, g := raw(dst), raw(src)
	for i, v := range g {
		d[i] += s * v
	}
}

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

// Transpose returns aᵀ.
func (t *Tape) Transpose(a *Node) *Node {
	t.check(a)
	r, c := a.Dims()
	out := t.allocDirty(c, r, a.needs)
	o, x := raw(out.Val), raw(a.Val)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			o[j*r+i] = x[i*c+j]
		}
	}
	if out.needs {
		t.record(out, func() {
			g, ga := raw(out.grad), raw(t.gradOf(a))
			for i := 0; i < r; i++ {
				for j := 0; j < c; j++ {
					ga[i*c+j] += g[j*r+i]
				}
			}
		})
	}
	return out
}

// ConcatCols returns [a | b] with a and b stacked side by side.
func (t *Tape) ConcatCols(a, b *Node) *Node {
	t.check(a, b)
	r, ac := a.Dims()
	br, bc := b.Dims()
	if br != r {
		panic(ErrShape)
	}
	c := ac + bc
	out := t.allocDirty(r, c, a.needs || b.needs)
	o, x, y := raw(out.Val), raw(a.Val), raw(b.Val)
	for i := 0; i < r; i++ {
		copy(o[i*c:i*c+ac], x[i*ac:(i+1)*ac])
		copy(o[i*c+ac:(i+1)*c], y[i*bc:(i+1)*bc])
	}
	if out.needs {
		t.record(out, func() {
			g := raw(out.grad)
			if a.needs {
				ga := raw(t.gradOf(a))
				for i := 0; i < r; i++ {
					for j := 0; j < ac; j++ {
						ga[i*ac+j] += g[i*c+j]
					}
				}
			}
			if b.needs {
				gb := raw(t.gradOf(b))
				for i := 0; i < r; i++ {
					for j := 0; j < bc; j++ {
						gb[i*bc+j] += g[i*c+ac+j]
					}
				}
			}
		})
	}
	return out
}

// GatherRows returns the matrix whose row i is row idx[i] of a. idx must
// stay unchanged until Backward has run.
func (t *Tape) GatherRows(a *Node, idx []int) *Node {
	t.check(a)
	r, c := a.Dims()
	for _, k := range idx {
		if k < 0 || k >= r {
			panic(ErrIndex)
		}
	}
	out := t.allocDirty(len(idx), c, a.needs)
	o, x := raw(out.Val), raw(a.Val)
	for i, k := range idx {
		copy(o[i*c:(i+1)*c], x[k*c:(k+1)*c])
	}
	if out.needs {
		t.record(out, func() {
			g, ga := raw(out.grad), raw(t.gradOf(a))
			for i, k := range idx {
				gi, gk := g[i*c:(i+1)*c], ga[k*c:(k+1)*c]
				for j, v := range gi {
					gk[j] += v
				}
			}
		})
	}
	return out
}

// ScatterSumRows returns the n-row matrix whose row k is the sum of the rows
// i of a with idx[i] == k. idx must stay unchanged until Backward has run.
func (t *Tape) ScatterSumRows(a *Node, idx []int, n int) *Node {
	t.check(a)
	r, c := a.Dims()
	if len(idx) != r {
		panic(ErrShape)
	}
	for _, k := range idx {
		if k < 0 || k >= n {
			panic(ErrIndex)
		}
	}
	out := t.alloc(n, c, a.needs)
	o, x := raw(out.Val), raw(a.Val)
	for i, k := range idx {
		xi, ok := x[i*c:(i+1)*c], o[k*c:(k+1)*c]
		for j, v := range xi {
			ok[j] += v
		}
	}
	if out.needs {
		t.record(out, func() {
			g, ga := raw(out.grad), raw(t.gradOf(a))
			for i, k := range idx {
				gk, gi := g[k*c:(k+1)*c], ga[i*c:(i+1)*c]
				for j, v := range gk {
					gi[j] += v
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

// Im2Col1D unfolds a for a 1-D convolution. a holds segments of segLen
// consecutive rows (one sequence each, channels as columns); the result row
// p holds the k·c values of rows p−k/2 … p+k/2 of the same segment, with
// zeros past either end of the segment. Multiplying by a (k·c)×out weight
// gives a "same"-padded convolution.
func (t *Tape) Im2Col1D(a *Node, segLen, k int) *Node {
	t.check(a)
	r, c := a.Dims()
	if segLen <= 0 || k <= 0 || r%segLen != 0 {
		panic(ErrShape)
	}
	half := k / 2
	w := k * c
	out := t.alloc(r, w, a.needs)
	o, x := raw(out.Val), raw(a.Val)
	for p := 0; p < r; p++ {
		base := p - p%segLen
		for q := 0; q < k; q++ {
			src := p - half + q
			if src < base || src >= base+segLen {
				continue
			}
			copy(o[p*w+q*c:p*w+(q+1)*c], x[src*c:(src+1)*c])
		}
	}
	if out.needs {
		t.record(out, func() {
			g, ga := raw(out.grad), raw(t.gradOf(a))
			for p := 0; p < r; p++ {
				base := p - p%segLen
				for q := 0; q < k; q++ {
					src := p - half + q
					if src < base || src >= base+segLen {
						continue
					}
					gs, gp := ga[src*c:(src+1)*c], g[p*w+q*c:p*w+(q+1)*c]
					for j, v := range gp {
						gs[j] += v
					}
				}
			}
		})
	}
	return out
}

// Linear returns x·W + b (b is a 1×out row).
func (t *Tape) Linear(x *Node, w, b *Param) *Node {
	return t.AddRow(t.MatMul(x, t.Param(w)), t.Param(b))
}

// SliceRows returns rows [from, to) of a as a new matrix.
func (t *Tape) SliceRows(a *Node, from, to int) *Node {
	t.check(a)
	r, c := a.Dims()
	if from < 0 || to > r || from > to {
		panic(ErrIndex)
	}
	out := t.allocDirty(to-from, c, a.needs)
	copy(raw(out.Val), raw(a.Val)[from*c:to*c])
	if out.needs {
		t.record(out, func() {
			ga := raw(t.gradOf(a))[from*c : to*c]
			for i, v := range raw(out.grad) {
				ga[i] += v
			}
		})
	}
	return out
}

// ConcatRows returns a stacked above b.
func (t *Tape) ConcatRows(a, b *Node) *Node {
	t.check(a, b)
	ar, c := a.Dims()
	br, bc := b.Dims()
	if bc != c {
		panic(ErrShape)
	}
	out := t.allocDirty(ar+br, c, a.needs || b.needs)
	o := raw(out.Val)
	copy(o, raw(a.Val))
	copy(o[ar*c:], raw(b.Val))
	if out.needs {
		t.record(out, func() {
			g := raw(out.grad)
			if a.needs {
				accumSlice(raw(t.gradOf(a)), g[:ar*c])
			}
			if b.needs {
				accumSlice(raw(t.gradOf(b)), g[ar*c:])
			}
		})
	}
	return out
}

func accumSlice(dst, src []float64) {
	for i, v := range src {
		dst[i] += v
	}
}

// SliceCols returns columns [from, to) of a as a new matrix.
func (t *Tape) SliceCols(a *Node, from, to int) *Node {
	t.check(a)
	r, c := a.Dims()
	if from < 0 || to > c || from > to {
		panic(ErrIndex)
	}
	w := to - from
	out := t.allocDirty(r, w, a.needs)
	o, x := raw(out.Val), raw(a.Val)
	for i := 0; i < r; i++ {
		copy(o[i*w:(i+1)*w], x[i*c+from:i*c+to])
	}
	if out.needs {
		t.record(out, func() {
			g, ga := raw(out.grad), raw(t.gradOf(a))
			for i := 0; i < r; i++ {
				accumSlice(ga[i*c+from:i*c+to], g[i*w:(i+1)*w])
			}
		})
	}
	return out
}
