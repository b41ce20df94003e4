package protocol

import "encoding/binary"

// Parse is a zero-allocation view of an extended-protocol Parse ('P')
// message.
type Parse struct {
	// Name is the prepared statement's name; empty for the unnamed one.
	Name []byte
	// SQL is the statement text.
	SQL []byte
	// ParamOIDs holds the declared parameter type OIDs, 4 bytes each, big
	// endian; use NumParams and ParamOID to read them.
	ParamOIDs []byte
}

// Frontend marks Parse as a frontend message.
func (*Parse) Frontend() {}

// NumParams returns the number of declared parameter types.
func (p *Parse) NumParams() int { return len(p.ParamOIDs) / 4 }

// ParamOID returns the i-th declared parameter type OID (0: unspecified).
func (p *Parse) ParamOID(i int) uint32 { return binary.BigEndian.Uint32(p.ParamOIDs[4*i:]) }

// Decode decodes the body of a Parse message (without header) into p.
func (p *Parse) Decode(body []byte) error {
	name, rest, ok := cstring(body)
	if !ok {
		return &MalformedError{Type: TypeParse, Reason: "missing statement name terminator"}
	}
	sql, rest, ok := cstring(rest)
	if !ok {
		return &MalformedError{Type: TypeParse, Reason: "missing query terminator"}
	}
	if len(rest) < 2 {
		return &MalformedError{Type: TypeParse, Reason: "missing parameter count"}
	}
	n := int(binary.BigEndian.Uint16(rest))
	rest = rest[2:]
	if len(rest) != 4*n {
		return &MalformedError{Type: TypeParse, Reason: "parameter type list does not match its count"}
	}
	p.Name, p.SQL, p.ParamOIDs = name, sql, rest
	return nil
}

// Encode appends the whole message, header included, to dst.
func (p *Parse) Encode(dst []byte) []byte {
	dst, sp := beginMessage(dst, TypeParse)
	dst = append(dst, p.Name...)
	dst = append(dst, 0)
	dst = append(dst, p.SQL...)
	dst = append(dst, 0)
	dst = binary.BigEndian.AppendUint16(dst, uint16(p.NumParams()))
	dst = append(dst, p.ParamOIDs[:4*p.NumParams()]...)
	return finishMessage(dst, sp)
}
