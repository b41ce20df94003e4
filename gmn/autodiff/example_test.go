package autodiff_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	ad "github.com/pgequiv/pgequiv/gmn/autodiff"
)

func Example() {
	var ps ad.ParamSet
	w := ps.New("w", 1, 2)
	w.Val.SetRow(0, []float64{3, -1})

	t := ad.NewTape(true)
	x := t.Const(mat.NewDense(2, 1, []float64{1, 2}))
	// loss = Σ (x·w)², so dloss/dw = 2·xᵀ(x·w).
	y := t.MatMul(x, t.Param(w)) // 2×2
	loss := t.SumAll(t.Mul(y, y))
	t.Backward(loss)

	g := ps.NewGrads()
	t.AddParamGrads(&ps, g)
	fmt.Println("loss:", loss.Scalar())
	fmt.Println("dloss/dw:", g[w.ID()].RawRowView(0))
	// Output:
	// loss: 50
	// dloss/dw: [30 -10]
}
