package exec

import "sync"

// Scratch is memory that executions run one after another share: an
// execution's intermediate rows and relations are garbage once it
// returns (its Result is a copy of its own), so the next execution
// given the same Scratch carves its rows and relations from the memory
// the last one used instead of allocating them. A refutation search
// runs two plans on each of hundreds of small databases, and allocating
// (and collecting) those short-lived rows was a large share of its
// time.
//
// Passing a Scratch to an execution invalidates nothing an earlier one
// returned. The zero value is ready; a Scratch is not safe for
// concurrent use, and must not be given to an execution started while
// another with it is running.
type Scratch struct {
	x     executor // the execution's state itself
	vals  slab[Value]
	heads slab[[]Value]
	rels  slab[rel]
}

// scratches holds released Scratches: a search per judged pair would
// otherwise allocate its chunks afresh.
var scratches = sync.Pool{New: func() any { return new(Scratch) }}

// GetScratch returns a Scratch, one released earlier where there is
// one.
func GetScratch() *Scratch { return scratches.Get().(*Scratch) }

// Release hands s back for GetScratch; s must not be used after. It
// keeps at most scratchKeep chunks of each kind, so that one large
// execution does not hold its memory for good.
func (s *Scratch) Release() {
	s.x = executor{}
	s.vals.trim(scratchKeep)
	s.heads.trim(scratchKeep)
	s.rels.trim(scratchKeep)
	scratches.Put(s)
}

// The largest chunks of a Scratch's slabs, in elements: a few
// executions' worth of the refuter's small databases. A request larger
// than that is allocated on its own.
const (
	scratchVals  = 2048
	scratchHeads = 1024
	scratchRels  = 128
	scratchKeep  = 8
)

// reset makes all of s's memory free for the next execution.
func (s *Scratch) reset() {
	s.vals.reset()
	s.heads.reset()
	s.rels.reset()
}

// slab hands out zeroed slices carved from chunks it keeps, in order;
// reset hands them out again from the first.
type slab[T any] struct {
	chunks [][]T
	i, off int // the chunk being carved, and the offset in it
}

// slabFirst is the size of a slab's first chunk; each next one is twice
// the last, up to the slab's largest: most users need a few rows, some
// thousands.
const slabFirst = 64

// take returns a zeroed slice of n elements whose capacity is its
// length, so that appending to it never writes into the next one; most
// is the largest chunk.
func (s *slab[T]) take(n, most int) []T {
	if n == 0 {
		return []T{}
	}
	if n > most {
		return make([]T, n)
	}
	for s.i < len(s.chunks) && s.off+n > len(s.chunks[s.i]) {
		s.i, s.off = s.i+1, 0
	}
	if s.i == len(s.chunks) {
		size := slabFirst
		if k := len(s.chunks); k > 0 {
			size = 2 * len(s.chunks[k-1])
		}
		s.chunks = append(s.chunks, make([]T, min(max(size, n), most)))
	}
	out := s.chunks[s.i][s.off : s.off+n : s.off+n]
	s.off += n
	clear(out) // what the last execution left (a fresh chunk is zero already)
	return out
}

func (s *slab[T]) reset() { s.i, s.off = 0, 0 }

// trim resets s and drops all but its first n chunks. (The chunks kept
// still point at what they last held, until reused: a pooled Scratch
// lasts until the next collections at most.)
func (s *slab[T]) trim(n int) {
	s.reset()
	if len(s.chunks) > n {
		clear(s.chunks[n:])
		s.chunks = s.chunks[:n]
	}
}
