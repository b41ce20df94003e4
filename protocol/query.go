package protocol

import "bytes"

// Query is a zero-allocation view of a simple-protocol Query ('Q') message.
type Query struct {
	// SQL is the query text without its terminator; it aliases the decoded
	// buffer.
	SQL []byte
}

// Frontend marks Query as a frontend message.
func (*Query) Frontend() {}

// Decode decodes the body of a Query message (without header) into q.
func (q *Query) Decode(body []byte) error {
	s, rest, ok := cstring(body)
	if !ok {
		return &MalformedError{Type: TypeQuery, Reason: "missing string terminator"}
	}
	if len(rest) != 0 {
		return &MalformedError{Type: TypeQuery, Reason: "trailing data"}
	}
	q.SQL = s
	return nil
}

// Encode appends the whole message, header included, to dst.
func (q *Query) Encode(dst []byte) []byte {
	dst, sp := beginMessage(dst, TypeQuery)
	dst = append(dst, q.SQL...)
	dst = append(dst, 0)
	return finishMessage(dst, sp)
}

// cstring splits a NUL-terminated string off the front of b.
func cstring(b []byte) (s, rest []byte, ok bool) {
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return nil, nil, false
	}
	return b[:i:i], b[i+1:], true
}
