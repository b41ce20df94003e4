package autodiff

// The helpers every op shares: dense storage read as one slice, and the
// shape check and accumulation of gradients.

import "gonum.org/v1/gonum/mat"

// raw is m's backing data; every matrix on a tape is dense and unstrided.
func raw(m *mat.Dense) []float64 { return m.RawMatrix().Data }

// sameShape panics with ErrShape unless a and b have the same dimensions.
func sameShape(a, b *Node) {
	ar, ac := a.Dims()
	br, bc := b.Dims()
	if ar != br || ac != bc {
		panic(ErrShape)
	}
}

// accum adds s·src into dst (same shape), as gradients flow back.
func accum(dst *mat.Dense, s float64, src *mat.Dense) {
	d, g := raw(dst), raw(src)
	for i, v := range g {
		d[i] += s * v
	}
}

// accumSlice adds src into dst elementwise.
func accumSlice(dst, src []float64) {
	for i, v := range src {
		dst[i] += v
	}
}
