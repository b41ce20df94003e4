package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

type shape struct{ r, c int }

// gradCase is one finite-difference check: build maps parameter leaves to
// an output node, which is contracted with a fixed random matrix to a scalar.
type gradCase struct {
	name  string
	in    []shape
	build func(t *Tape, in []*Node) *Node
	tol   float64 // max |analytic − numeric| / max(1, |numeric|)
	// positive makes inputs positive (for ops defined away from zero).
	positive bool
}

func scalarLoss(t *Tape, out *Node, r *mat.Dense) *Node {
	return t.SumAll(t.Mul(out, t.Const(r)))
}

func runGradCheck(t *testing.T, tc gradCase, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 99))
	var ps ParamSet
	var params []*Param
	for i, s := range tc.in {
		p := ps.New(fmt.Sprint("in", i), s.r, s.c)
		for j := range raw(p.Val) {
			v := rng.NormFloat64()
			if tc.positive {
				v = 0.5 + math.Abs(v)
			}
			raw(p.Val)[j] = v
		}
		params = append(params, p)
	}
	forward := func(tp *Tape) (*Node, *Node) {
		in := make([]*Node, len(params))
		for i, p := range params {
			in[i] = tp.Param(p)
		}
		return tc.build(tp, in), nil
	}
	// Fixed contraction matrix.
	probe := NewTape(false)
	out0, _ := forward(probe)
	or, oc := out0.Dims()
	rm := mat.NewDense(or, oc, nil)
	for j := range raw(rm) {
		raw(rm)[j] = rng.NormFloat64()
	}
	tp := NewTape(true)
	out, _ := forward(tp)
	loss := scalarLoss(tp, out, rm)
	tp.Backward(loss)
	g := ps.NewGrads()
	tp.AddParamGrads(&ps, g)

	lossAt := func() float64 {
		ft := NewTape(false)
		o, _ := forward(ft)
		return scalarLoss(ft, o, rm).Scalar()
	}
	const h = 1e-6
	for i, p := range params {
		w := raw(p.Val)
		for j := range w {
			old := w[j]
			w[j] = old + h
			fp := lossAt()
			w[j] = old - h
			fm := lossAt()
			w[j] = old
			num := (fp - fm) / (2 * h)
			got := raw(g[i])[j]
			if err := math.Abs(got-num) / math.Max(1, math.Abs(num)); err > tc.tol {
				t.Errorf("%s: d/d in%d[%d] analytic %.8g numeric %.8g (rel err %.2g > %.2g)",
					tc.name, i, j, got, num, err, tc.tol)
			}
		}
	}
}

func TestGradCheck(t *testing.T) {
	gru := func() (*ParamSet, *GRU) {
		var s ParamSet
		return &s, NewGRU(&s, "gru", 3, 2, rand.New(rand.NewPCG(5, 5)))
	}
	gs, g := gru()
	_ = gs
	idx := []int{2, 0, 2, 1}
	cases := []gradCase{
		{name: "MatMul", in: []shape{{3, 4}, {4, 2}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.MatMul(in[0], in[1]) }},
		{name: "MatMulNT", in: []shape{{3, 4}, {5, 4}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.MatMulNT(in[0], in[1]) }},
		{name: "Add", in: []shape{{2, 3}, {2, 3}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.Add(in[0], in[1]) }},
		{name: "Sub", in: []shape{{2, 3}, {2, 3}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.Sub(in[0], in[1]) }},
		{name: "Mul", in: []shape{{2, 3}, {2, 3}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.Mul(in[0], in[1]) }},
		{name: "AddRow", in: []shape{{4, 3}, {1, 3}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.AddRow(in[0], in[1]) }},
		{name: "Scale", in: []shape{{2, 3}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.Scale(-1.7, in[0]) }},
		{name: "ScaleRows", in: []shape{{3, 2}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.ScaleRows(in[0], []float64{0.5, -2, 3}) }},
		{name: "ReLU", in: []shape{{4, 5}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.ReLU(in[0]) }},
		{name: "Tanh", in: []shape{{4, 5}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.Tanh(in[0]) }},
		{name: "Sigmoid", in: []shape{{4, 5}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.Sigmoid(in[0]) }},
		{name: "Exp", in: []shape{{2, 3}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.Exp(in[0]) }},
		{name: "SoftmaxRows", in: []shape{{3, 5}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.SoftmaxRows(in[0]) }},
		{name: "Transpose", in: []shape{{3, 2}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.Transpose(in[0]) }},
		{name: "ConcatCols", in: []shape{{3, 2}, {3, 4}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.ConcatCols(in[0], in[1]) }},
		{name: "GatherRows", in: []shape{{3, 2}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.GatherRows(in[0], idx) }},
		{name: "ScatterSumRows", in: []shape{{4, 2}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.ScatterSumRows(in[0], idx, 5) }},
		{name: "SumRows", in: []shape{{4, 3}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.SumRows(in[0]) }},
		{name: "SumAll", in: []shape{{4, 3}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.SumAll(in[0]) }},
		{name: "SqDist", in: []shape{{1, 6}, {1, 6}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.SqDist(in[0], in[1]) }},
		{name: "L2NormalizeRows", in: []shape{{3, 4}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.L2NormalizeRows(in[0], 1e-12) }},
		{name: "Im2Col1D", in: []shape{{6, 2}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.Im2Col1D(in[0], 3, 3) }},
		{name: "SliceRows", in: []shape{{5, 2}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.SliceRows(in[0], 1, 4) }},
		{name: "SliceCols", in: []shape{{3, 5}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.SliceCols(in[0], 1, 4) }},
		{name: "ConcatRows", in: []shape{{2, 3}, {4, 3}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.ConcatRows(in[0], in[1]) }},
		{name: "Linear", in: []shape{{3, 4}, {4, 2}, {1, 2}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.AddRow(t.MatMul(in[0], in[1]), in[2]) }},
		{name: "DistBCE/y=1", in: []shape{{1, 1}}, tol: 1e-6, positive: true,
			build: func(t *Tape, in []*Node) *Node { return t.DistBCE(in[0], 1, 2) }},
		{name: "DistBCE/y=0", in: []shape{{1, 1}}, tol: 1e-6, positive: true,
			build: func(t *Tape, in []*Node) *Node { return t.DistBCE(in[0], 0, 2) }},
		{name: "DistBCE/y=0.3", in: []shape{{1, 1}}, tol: 1e-6, positive: true,
			build: func(t *Tape, in []*Node) *Node { return t.DistBCE(in[0], 0.3, 0.5) }},
		{name: "CrossEntropyRows", in: []shape{{3, 4}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.CrossEntropyRows(in[0], []int{1, 3, 0}, false) }},
		{name: "CrossEntropyRows/excludeDiag", in: []shape{{4, 4}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.CrossEntropyRows(in[0], []int{1, 3, 0, 2}, true) }},
		{name: "NTXent", in: []shape{{6, 3}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.NTXent(in[0], 0.5) }},
		{name: "GRU", in: []shape{{4, 2}, {4, 3}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node { return t.GRU(g, in[0], in[1]) }},
		{name: "Chain/attention", in: []shape{{3, 4}, {5, 4}}, tol: 1e-6,
			build: func(t *Tape, in []*Node) *Node {
				a := t.SoftmaxRows(t.Scale(0.5, t.MatMulNT(in[0], in[1])))
				return t.Sub(in[0], t.MatMul(a, in[1]))
			}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { runGradCheck(t, tc, uint64(i+1)) })
	}
}

// The GRU's own weights also get correct gradients.
func TestGradCheckGRUWeights(t *testing.T) {
	var s ParamSet
	rng := rand.New(rand.NewPCG(3, 4))
	g := NewGRU(&s, "gru", 3, 2, rng)
	for _, p := range s.Params() {
		for j := range raw(p.Val) {
			raw(p.Val)[j] = rng.NormFloat64() * 0.5
		}
	}
	h := mat.NewDense(2, 2, []float64{0.1, -0.3, 0.7, 0.2})
	x := mat.NewDense(2, 3, []float64{1, -1, 0.5, 0.2, 0.3, -0.8})
	loss := func(tp *Tape) *Node {
		return tp.SumAll(tp.Tanh(tp.GRU(g, tp.Const(h), tp.Const(x))))
	}
	tp := NewTape(true)
	l := loss(tp)
	tp.Backward(l)
	grads := s.NewGrads()
	tp.AddParamGrads(&s, grads)
	const eps, tol = 1e-6, 1e-6
	for i, p := range s.Params() {
		w := raw(p.Val)
		for j := range w {
			old := w[j]
			w[j] = old + eps
			fp := loss(NewTape(false)).Scalar()
			w[j] = old - eps
			fm := loss(NewTape(false)).Scalar()
			w[j] = old
			num := (fp - fm) / (2 * eps)
			if d := math.Abs(raw(grads[i])[j] - num); d > tol {
				t.Errorf("%s[%d]: analytic %g numeric %g", p.Name, j, raw(grads[i])[j], num)
			}
		}
	}
}

func TestShapePanics(t *testing.T) {
	cases := []struct {
		name string
		f    func(t *Tape)
		want error
	}{
		{"MatMul", func(t *Tape) { t.MatMul(t.Const(mat.NewDense(2, 3, nil)), t.Const(mat.NewDense(2, 3, nil))) }, ErrShape},
		{"Add", func(t *Tape) { t.Add(t.Const(mat.NewDense(2, 3, nil)), t.Const(mat.NewDense(3, 2, nil))) }, ErrShape},
		{"Gather", func(t *Tape) { t.GatherRows(t.Const(mat.NewDense(2, 3, nil)), []int{2}) }, ErrIndex},
		{"Scatter", func(t *Tape) { t.ScatterSumRows(t.Const(mat.NewDense(1, 3, nil)), []int{4}, 3) }, ErrIndex},
		{"Backward/notScalar", func(t *Tape) { t.Backward(t.Const(mat.NewDense(2, 1, nil))) }, ErrNotScalar},
		{"Foreign", func(t *Tape) { NewTape(true).Add(t.Const(mat.NewDense(1, 1, nil)), t.Const(mat.NewDense(1, 1, nil))) }, ErrForeign},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != tc.want {
					t.Fatalf("recovered %v, want %v", r, tc.want)
				}
			}()
			tc.f(NewTape(true))
		})
	}
}

// Reset reuses buffers: a second identical pass allocates nothing.
func TestTapeReuseNoAllocs(t *testing.T) {
	var s ParamSet
	w := s.New("w", 8, 8)
	GlorotInit(w, rand.New(rand.NewPCG(1, 2)))
	x := mat.NewDense(5, 8, nil)
	tp := NewTape(false)
	pass := func() {
		tp.Reset()
		h := tp.Tanh(tp.MatMul(tp.Const(x), tp.Param(w)))
		tp.SoftmaxRows(tp.MatMulNT(h, h))
	}
	pass()
	if n := testing.AllocsPerRun(20, pass); n != 0 {
		t.Fatalf("allocs per inference pass = %v, want 0", n)
	}
}

func TestAdamMinimisesQuadratic(t *testing.T) {
	var s ParamSet
	p := s.New("p", 1, 3)
	copy(raw(p.Val), []float64{3, -2, 1})
	opt := NewAdam(0.1)
	g := s.NewGrads()
	for i := 0; i < 300; i++ {
		tp := NewTape(true)
		l := tp.SumAll(tp.Mul(tp.Param(p), tp.Param(p)))
		tp.Backward(l)
		g.Zero()
		tp.AddParamGrads(&s, g)
		if err := opt.Step(&s, g); err != nil {
			t.Fatal(err)
		}
	}
	for j, v := range raw(p.Val) {
		if math.Abs(v) > 1e-2 {
			t.Errorf("p[%d] = %g, want ≈ 0 (tol 1e-2)", j, v)
		}
	}
	bad := &Adam{LR: 0}
	if err := bad.Step(&s, g); err != ErrAdamConfig {
		t.Errorf("zero LR: err = %v, want ErrAdamConfig", err)
	}
}

// Tall products are split into serial row bands; they must equal gonum's
// own product.
func TestMatMulBandsMatchGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, sz := range []struct{ m, k, n int }{{300, 40, 20}, {1000, 7, 70}, {193, 64, 64}, {5, 3, 300}} {
		a, b := mat.NewDense(sz.m, sz.k, nil), mat.NewDense(sz.k, sz.n, nil)
		for _, d := range [][]float64{raw(a), raw(b)} {
			for i := range d {
				d[i] = rng.NormFloat64()
			}
		}
		tp := NewTape(false)
		got := tp.MatMul(tp.Const(a), tp.Const(b)).Val
		var want mat.Dense
		want.Mul(a, b)
		const tol = 1e-12
		if !mat.EqualApprox(got, &want, tol) {
			t.Errorf("%d×%d·%d×%d: banded product differs from gonum (tol %g)", sz.m, sz.k, sz.k, sz.n, tol)
		}
	}
}

// The fused GRU computes the textbook cell h' = (1−z)⊙n + z⊙h.
func TestGRUForwardMatchesTextbook(t *testing.T) {
	const in, H = 3, 2
	var s ParamSet
	rng := rand.New(rand.NewPCG(12, 13))
	g := NewGRU(&s, "gru", in, H, rng)
	for _, p := range s.Params() {
		for j := range raw(p.Val) {
			raw(p.Val)[j] = rng.NormFloat64()
		}
	}
	x := []float64{0.3, -1.2, 0.8}
	h := []float64{0.5, -0.25}
	tp := NewTape(false)
	got := raw(tp.GRU(g, tp.ConstData(1, H, h), tp.ConstData(1, in, x)).Val)
	wx, bx, uzr, un := g.Wx.Val, g.Bx.Val, g.Uzr.Val, g.Un.Val
	gate := func(col int, hh []float64, u *mat.Dense, ucol int) float64 {
		v := bx.At(0, col)
		for i := range x {
			v += x[i] * wx.At(i, col)
		}
		for i := range hh {
			v += hh[i] * u.At(i, ucol)
		}
		return v
	}
	const tol = 1e-14
	for j := 0; j < H; j++ {
		z := Sigmoid(gate(j, h, uzr, j))
		rh := make([]float64, H)
		for i := range h {
			rh[i] = Sigmoid(gate(H+i, h, uzr, H+i)) * h[i]
		}
		n := math.Tanh(gate(2*H+j, rh, un, j))
		if want := (1-z)*n + z*h[j]; math.Abs(got[j]-want) > tol {
			t.Errorf("h'[%d] = %.17g, want %.17g", j, got[j], want)
		}
	}
}
