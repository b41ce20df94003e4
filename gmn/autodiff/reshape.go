package autodiff

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
