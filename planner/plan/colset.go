package plan

import "math/bits"

// ColSet is a set of column IDs as a bitmap over a window of words. A
// plan numbers its columns densely, but a large one (TPC-DS query 14a)
// reaches IDs in the thousands, and most sets (a predicate's columns, one
// equivalence class, a key) hold a few IDs close together: the window
// starts at the word of the smallest member, so such a set is a word or
// two however high its IDs are, rather than a bitmap from column 0.
type ColSet struct {
	// off is the index, in 64-bit words of the whole bitmap, of words[0].
	off   int
	words []uint64
}

// MakeColSet returns a set holding ids.
func MakeColSet(ids ...ColumnID) ColSet {
	var s ColSet
	for _, id := range ids {
		s.Add(id)
	}
	return s
}

// word returns the bitmap's word k (0 outside the window).
func (s ColSet) word(k int) uint64 {
	if i := k - s.off; i >= 0 && i < len(s.words) {
		return s.words[i]
	}
	return 0
}

// cover widens the window to hold words lo..hi-1 (hi > lo), with one
// allocation at most.
func (s *ColSet) cover(lo, hi int) {
	if len(s.words) == 0 {
		s.off, s.words = lo, make([]uint64, hi-lo)
		return
	}
	end := s.off + len(s.words)
	if lo >= s.off && hi <= end {
		return
	}
	if lo >= s.off {
		s.words = append(s.words, make([]uint64, hi-end)...)
		return
	}
	if hi < end {
		hi = end
	}
	// Growing downwards, take at least as many words again below, so
	// that adding IDs in decreasing order (a walk over a plan) copies
	// the window a logarithmic number of times, not once per word.
	lo = min(lo, max(0, s.off-len(s.words)))
	w := make([]uint64, hi-lo)
	copy(w[s.off-lo:], s.words)
	s.off, s.words = lo, w
}

// Add inserts id. The test within the window stays small enough to be
// inlined: plan walks add every column reference they meet.
func (s *ColSet) Add(id ColumnID) {
	if i := uint(int(id>>6) - s.off); i < uint(len(s.words)) {
		s.words[i] |= 1 << (id & 63)
		return
	}
	s.addOutside(id)
}

// addOutside inserts an id outside the window, widening it.
func (s *ColSet) addOutside(id ColumnID) {
	w := int(id) / 64
	s.cover(w, w+1)
	s.words[w-s.off] |= 1 << (uint(id) % 64)
}

// Remove deletes id.
func (s *ColSet) Remove(id ColumnID) {
	if i := int(id)/64 - s.off; i >= 0 && i < len(s.words) {
		s.words[i] &^= 1 << (uint(id) % 64)
	}
}

// Has reports membership.
func (s ColSet) Has(id ColumnID) bool {
	return s.word(int(id)/64)&(1<<(uint(id)%64)) != 0
}

// Len counts members.
func (s ColSet) Len() int {
	n := 0
	for _, w := range s.words {
		n += bits.OnesCount64(w)
	}
	return n
}

// Empty reports whether the set has no members.
func (s ColSet) Empty() bool {
	for _, w := range s.words {
		if w != 0 {
			return false
		}
	}
	return true
}

// SubsetOf reports whether every member of s is in o.
func (s ColSet) SubsetOf(o ColSet) bool {
	for i, w := range s.words {
		if w != 0 && w&^o.word(s.off+i) != 0 {
			return false
		}
	}
	return true
}

// Intersects reports whether s and o share a member.
func (s ColSet) Intersects(o ColSet) bool {
	lo, hi := max(s.off, o.off), min(s.off+len(s.words), o.off+len(o.words))
	for k := lo; k < hi; k++ {
		if s.words[k-s.off]&o.words[k-o.off] != 0 {
			return true
		}
	}
	return false
}

// Union returns s ∪ o as a new set.
func (s ColSet) Union(o ColSet) ColSet {
	r := s.Copy()
	r.UnionWith(o)
	return r
}

// UnionWith adds o's members to s.
func (s *ColSet) UnionWith(o ColSet) {
	if len(o.words) == 0 {
		return
	}
	s.cover(o.off, o.off+len(o.words))
	d := o.off - s.off
	for i, w := range o.words {
		s.words[d+i] |= w
	}
}

// Copy returns an independent copy.
func (s ColSet) Copy() ColSet {
	if len(s.words) == 0 {
		return ColSet{}
	}
	return ColSet{off: s.off, words: append([]uint64(nil), s.words...)}
}

// Ordered returns members in increasing order.
func (s ColSet) Ordered() []ColumnID {
	var out []ColumnID
	for i, w := range s.words {
		for w != 0 {
			b := bits.TrailingZeros64(w)
			out = append(out, ColumnID((s.off+i)*64+b))
			w &^= 1 << uint(b)
		}
	}
	return out
}

// Equals reports set equality.
func (s ColSet) Equals(o ColSet) bool { return s.SubsetOf(o) && o.SubsetOf(s) }
