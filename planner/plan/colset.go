package plan

import "math/bits"

// ColSet is a set of column IDs as a bitmap. Plans have tens of columns,
// so a few words cover them and set operations stay allocation-light.
type ColSet struct{ words []uint64 }

// MakeColSet returns a set holding ids.
func MakeColSet(ids ...ColumnID) ColSet {
	var s ColSet
	for _, id := range ids {
		s.Add(id)
	}
	return s
}

// Add inserts id.
func (s *ColSet) Add(id ColumnID) {
	w := int(id) / 64
	for len(s.words) <= w {
		s.words = append(s.words, 0)
	}
	s.words[w] |= 1 << (uint(id) % 64)
}

// Remove deletes id.
func (s *ColSet) Remove(id ColumnID) {
	w := int(id) / 64
	if w < len(s.words) {
		s.words[w] &^= 1 << (uint(id) % 64)
	}
}

// Has reports membership.
func (s ColSet) Has(id ColumnID) bool {
	w := int(id) / 64
	return w < len(s.words) && s.words[w]&(1<<(uint(id)%64)) != 0
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
func (s ColSet) Empty() bool { return s.Len() == 0 }

// SubsetOf reports whether every member of s is in o.
func (s ColSet) SubsetOf(o ColSet) bool {
	for i, w := range s.words {
		var ow uint64
		if i < len(o.words) {
			ow = o.words[i]
		}
		if w&^ow != 0 {
			return false
		}
	}
	return true
}

// Intersects reports whether s and o share a member.
func (s ColSet) Intersects(o ColSet) bool {
	for i := 0; i < len(s.words) && i < len(o.words); i++ {
		if s.words[i]&o.words[i] != 0 {
			return true
		}
	}
	return false
}

// Union returns s ∪ o as a new set.
func (s ColSet) Union(o ColSet) ColSet {
	n := len(s.words)
	if len(o.words) > n {
		n = len(o.words)
	}
	r := ColSet{words: make([]uint64, n)}
	copy(r.words, s.words)
	for i, w := range o.words {
		r.words[i] |= w
	}
	return r
}

// UnionWith adds o's members to s.
func (s *ColSet) UnionWith(o ColSet) {
	for len(s.words) < len(o.words) {
		s.words = append(s.words, 0)
	}
	for i, w := range o.words {
		s.words[i] |= w
	}
}

// Copy returns an independent copy.
func (s ColSet) Copy() ColSet { return ColSet{words: append([]uint64(nil), s.words...)} }

// Ordered returns members in increasing order.
func (s ColSet) Ordered() []ColumnID {
	var out []ColumnID
	for i, w := range s.words {
		for w != 0 {
			b := bits.TrailingZeros64(w)
			out = append(out, ColumnID(i*64+b))
			w &^= 1 << uint(b)
		}
	}
	return out
}

// Equals reports set equality.
func (s ColSet) Equals(o ColSet) bool { return s.SubsetOf(o) && o.SubsetOf(s) }
