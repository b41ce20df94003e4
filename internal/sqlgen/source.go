package sqlgen

import "math/rand/v2"

// Source supplies every decision the generator makes. Intn returns a
// value in [0, n) for n > 0; a Source must never panic and must be
// deterministic for its input, so that a seed or a byte string names one
// query forever.
type Source interface {
	Intn(n int) int
}

// randSource draws decisions from a seeded PCG generator.
type randSource struct{ r *rand.Rand }

// NewRandSource returns a Source seeded with seed: the same seed gives the
// same decisions on every platform and Go release that keeps PCG stable.
func NewRandSource(seed uint64) Source {
	return randSource{rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

func (s randSource) Intn(n int) int {
	if n <= 1 {
		return 0
	}
	return s.r.IntN(n)
}

// ByteSource turns fuzz input into decisions: each decision consumes one
// byte (two when n exceeds 256), so a mutation of one byte changes one
// choice of structure rather than one character of SQL. When the bytes
// run out every decision is 0, which the generator treats as "the
// smallest option", so generation always terminates.
type ByteSource struct {
	b []byte
	i int
}

// NewByteSource reads decisions from b. It does not copy b.
func NewByteSource(b []byte) *ByteSource { return &ByteSource{b: b} }

// Intn implements Source.
func (s *ByteSource) Intn(n int) int {
	if n <= 1 {
		return 0
	}
	v := s.next()
	if n > 256 {
		v = v<<8 | s.next()
	}
	return v % n
}

// Exhausted reports whether every byte has been consumed.
func (s *ByteSource) Exhausted() bool { return s.i >= len(s.b) }

func (s *ByteSource) next() int {
	if s.i >= len(s.b) {
		return 0
	}
	v := int(s.b[s.i])
	s.i++
	return v
}
