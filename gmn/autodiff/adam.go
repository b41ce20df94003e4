package autodiff

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ErrAdamConfig reports invalid optimiser hyper-parameters.
var ErrAdamConfig = errors.New("gmn: invalid Adam configuration")

// Adam is the Adam optimiser (Kingma & Ba 2015) with bias correction.
type Adam struct {
	LR, Beta1, Beta2, Eps float64
	// ClipNorm, when positive, rescales the whole gradient so that its
	// global L2 norm is at most ClipNorm before the update.
	ClipNorm float64

	m, v []*mat.Dense
	step int
}

// NewAdam returns Adam with the usual defaults (β1 0.9, β2 0.999, ε 1e-8).
func NewAdam(lr float64) *Adam {
	return &Adam{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8}
}

// Steps is the number of updates applied so far.
func (a *Adam) Steps() int { return a.step }

// Step updates every parameter of s from g (g is left unchanged unless
// ClipNorm rescales it).
func (a *Adam) Step(s *ParamSet, g Grads) error {
	if a.LR <= 0 || a.Beta1 < 0 || a.Beta1 >= 1 || a.Beta2 < 0 || a.Beta2 >= 1 || a.Eps <= 0 {
		return ErrAdamConfig
	}
	ps := s.Params()
	if len(g) != len(ps) {
		return ErrShape
	}
	if a.m == nil {
		a.m, a.v = s.NewGrads(), s.NewGrads()
	}
	if a.ClipNorm > 0 {
		n := 0.0
		for _, gi := range g {
			for _, x := range raw(gi) {
				n += x * x
			}
		}
		if n = math.Sqrt(n); n > a.ClipNorm {
			for _, gi := range g {
				gi.Scale(a.ClipNorm/n, gi)
			}
		}
	}
	a.step++
	c1 := 1 - math.Pow(a.Beta1, float64(a.step))
	c2 := 1 - math.Pow(a.Beta2, float64(a.step))
	for i, p := range ps {
		w, gi, m, v := raw(p.Val), raw(g[i]), raw(a.m[i]), raw(a.v[i])
		if len(gi) != len(w) {
			return ErrShape
		}
		for j, d := range gi {
			m[j] = a.Beta1*m[j] + (1-a.Beta1)*d
			v[j] = a.Beta2*v[j] + (1-a.Beta2)*d*d
			w[j] -= a.LR * (m[j] / c1) / (math.Sqrt(v[j]/c2) + a.Eps)
		}
	}
	return nil
}
