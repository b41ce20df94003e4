package autodiff

import "math"

// minSqDist keeps the distance-based BCE finite when two graph vectors
// coincide: −log(1−e^−x) is clamped at x = minSqDist.
const minSqDist = 1e-9

// SimFromSqDist maps a squared distance to a similarity in (0, 1]:
// s = exp(−d²/τ).
func SimFromSqDist(d2, tau float64) float64 { return math.Exp(-d2 / tau) }

// DistBCE returns the 1×1 binary cross-entropy between the similarity
// s = exp(−d²/τ) of a 1×1 squared distance d2 and a label y ∈ [0,1]:
//
//	−y·log s − (1−y)·log(1−s) = y·x − (1−y)·log(−expm1(−x)),  x = d²/τ,
//
// computed in that stable form, with x clamped below at minSqDist.
func (t *Tape) DistBCE(d2 *Node, y, tau float64) *Node {
	t.check(d2)
	if r, c := d2.Dims(); r != 1 || c != 1 {
		panic(ErrNotScalar)
	}
	if tau <= 0 || y < 0 || y > 1 {
		panic(ErrShape)
	}
	x := max(raw(d2.Val)[0]/tau, minSqDist)
	clamped := raw(d2.Val)[0]/tau < minSqDist
	out := t.alloc(1, 1, d2.needs)
	raw(out.Val)[0] = y*x - (1-y)*math.Log(-math.Expm1(-x))
	if out.needs {
		t.record(out, func() {
			if clamped {
				return
			}
			g := raw(out.grad)[0]
			dx := y - (1-y)/math.Expm1(x)
			raw(t.gradOf(d2))[0] += g * dx / tau
		})
	}
	return out
}

// CrossEntropyRows returns the 1×1 mean over rows i of
// −log softmax(a_i)[target[i]], where with excludeDiag the diagonal entry
// a_ii is left out of row i's softmax (as in NT-Xent).
func (t *Tape) CrossEntropyRows(a *Node, target []int, excludeDiag bool) *Node {
	t.check(a)
	r, c := a.Dims()
	if len(target) != r || r == 0 {
		panic(ErrShape)
	}
	for i, k := range target {
		if k < 0 || k >= c || (excludeDiag && k == i) {
			panic(ErrIndex)
		}
	}
	out := t.alloc(1, 1, a.needs)
	x := raw(a.Val)
	p := make([]float64, r*c) // softmax probabilities, kept for backward
	loss := 0.0
	for i := 0; i < r; i++ {
		xi, pi := x[i*c:(i+1)*c], p[i*c:(i+1)*c]
		m := math.Inf(-1)
		for j, v := range xi {
			if excludeDiag && j == i {
				continue
			}
			m = max(m, v)
		}
		s := 0.0
		for j, v := range xi {
			if excludeDiag && j == i {
				continue
			}
			pi[j] = math.Exp(v - m)
			s += pi[j]
		}
		for j := range pi {
			pi[j] /= s
		}
		loss += -(xi[target[i]] - m - math.Log(s))
	}
	raw(out.Val)[0] = loss / float64(r)
	if out.needs {
		t.record(out, func() {
			g := raw(out.grad)[0] / float64(r)
			ga := raw(t.gradOf(a))
			for i := 0; i < r; i++ {
				for j := 0; j < c; j++ {
					d := p[i*c+j]
					if j == target[i] {
						d--
					}
					ga[i*c+j] += g * d
				}
			}
		})
	}
	return out
}

// NTXent returns the normalized-temperature cross-entropy loss of SimCLR /
// GraphCL for 2B embeddings z (rows 0…B−1 are the first views, rows
// B…2B−1 the second views of the same B graphs). Each row's positive is
// the other view of its graph; the other 2B−2 rows are negatives.
func (t *Tape) NTXent(z *Node, temp float64) *Node {
	r, _ := z.Dims()
	if r%2 != 0 || r < 2 || temp <= 0 {
		panic(ErrShape)
	}
	b := r / 2
	target := make([]int, r)
	for i := 0; i < b; i++ {
		target[i], target[i+b] = i+b, i
	}
	zn := t.L2NormalizeRows(z, 1e-12)
	s := t.Scale(1/temp, t.MatMulNT(zn, zn))
	return t.CrossEntropyRows(s, target, true)
}
