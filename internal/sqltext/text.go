package sqltext

import "bytes"

// SkipBlanks returns s after its leading blanks and comments (nil if a
// comment does not end).
func SkipBlanks(s []byte) []byte {
	for {
		s = bytes.TrimLeft(s, " \t\r\n\f")
		switch {
		case bytes.HasPrefix(s, []byte("--")):
			i := bytes.IndexByte(s, '\n')
			if i < 0 {
				return nil
			}
			s = s[i+1:]
		case bytes.HasPrefix(s, []byte("/*")):
			i := bytes.Index(s, []byte("*/"))
			if i < 0 {
				return nil
			}
			s = s[i+2:]
		default:
			return s
		}
	}
}

// ContainsFold reports whether s contains the lower-case ASCII word w,
// ignoring ASCII case, without allocating. It looks for w's first byte,
// in either case, with bytes.IndexByte (vectorized): every statement on
// a judging connection goes through it, and a byte-by-byte loop took
// 30 ms over a 20 MB statement.
func ContainsFold(s []byte, w string) bool {
	if len(w) == 0 {
		return true
	}
	first := [2]byte{w[0], w[0]}
	if c := w[0]; c >= 'a' && c <= 'z' {
		first[1] = c - 'a' + 'A'
	}
	for k, c := range first {
		if k == 1 && c == first[0] {
			break
		}
		for i := 0; i+len(w) <= len(s); i++ {
			n := bytes.IndexByte(s[i:len(s)-len(w)+1], c)
			if n < 0 {
				break
			}
			i += n
			if hasPrefixFold(s[i:], w) {
				return true
			}
		}
	}
	return false
}

// hasPrefixFold reports whether s starts with the lower-case ASCII word
// w, ignoring ASCII case.
func hasPrefixFold(s []byte, w string) bool {
	if len(s) < len(w) {
		return false
	}
	for j := 0; j < len(w); j++ {
		c := s[j]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[j] {
			return false
		}
	}
	return true
}
