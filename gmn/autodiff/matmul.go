package autodiff

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

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

// Linear returns x·W + b (b is a 1×out row).
func (t *Tape) Linear(x *Node, w, b *Param) *Node {
	return t.AddRow(t.MatMul(x, t.Param(w)), t.Param(b))
}
