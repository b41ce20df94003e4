package protocol

import "encoding/binary"

// Bind is a zero-allocation view of a Bind ('B') message. Only the names
// are split out; the format codes and parameter values are validated and
// kept raw in Rest.
type Bind struct {
	// Portal is the destination portal; empty for the unnamed one.
	Portal []byte
	// Statement is the source prepared statement; empty for the unnamed one.
	Statement []byte
	// NumParams is the number of parameter values.
	NumParams int
	// Rest is everything after the two names: parameter format codes,
	// parameter values and result format codes, in wire format.
	Rest []byte
}

// Frontend marks Bind as a frontend message.
func (*Bind) Frontend() {}

// Decode decodes the body of a Bind message (without header) into b.
func (b *Bind) Decode(body []byte) error {
	portal, rest, ok := cstring(body)
	if !ok {
		return &MalformedError{Type: TypeBind, Reason: "missing portal name terminator"}
	}
	stmt, rest, ok := cstring(rest)
	if !ok {
		return &MalformedError{Type: TypeBind, Reason: "missing statement name terminator"}
	}
	raw := rest
	// Parameter format codes.
	rest, ok = skipInt16Array(rest)
	if !ok {
		return &MalformedError{Type: TypeBind, Reason: "bad parameter format codes"}
	}
	// Parameter values: int16 count, then per value an int32 length (-1 for
	// NULL) and that many bytes.
	if len(rest) < 2 {
		return &MalformedError{Type: TypeBind, Reason: "missing parameter count"}
	}
	n := int(binary.BigEndian.Uint16(rest))
	rest = rest[2:]
	for range n {
		if len(rest) < 4 {
			return &MalformedError{Type: TypeBind, Reason: "truncated parameter value"}
		}
		l := int32(binary.BigEndian.Uint32(rest))
		rest = rest[4:]
		if l == -1 {
			continue
		}
		if l < 0 || int(l) > len(rest) {
			return &MalformedError{Type: TypeBind, Reason: "invalid parameter value length"}
		}
		rest = rest[l:]
	}
	// Result format codes.
	rest, ok = skipInt16Array(rest)
	if !ok {
		return &MalformedError{Type: TypeBind, Reason: "bad result format codes"}
	}
	if len(rest) != 0 {
		return &MalformedError{Type: TypeBind, Reason: "trailing data"}
	}
	b.Portal, b.Statement, b.NumParams, b.Rest = portal, stmt, n, raw
	return nil
}

// Encode appends the whole message, header included, to dst.
func (b *Bind) Encode(dst []byte) []byte {
	dst, sp := beginMessage(dst, TypeBind)
	dst = append(dst, b.Portal...)
	dst = append(dst, 0)
	dst = append(dst, b.Statement...)
	dst = append(dst, 0)
	dst = append(dst, b.Rest...)
	return finishMessage(dst, sp)
}

// skipInt16Array skips an int16 count followed by that many int16 values.
func skipInt16Array(b []byte) ([]byte, bool) {
	if len(b) < 2 {
		return nil, false
	}
	n := int(binary.BigEndian.Uint16(b))
	b = b[2:]
	if len(b) < 2*n {
		return nil, false
	}
	return b[2*n:], true
}
