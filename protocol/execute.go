package protocol

import "encoding/binary"

// Execute is a zero-allocation view of an Execute ('E') message.
type Execute struct {
	// Portal is the portal to run; empty for the unnamed one.
	Portal []byte
	// MaxRows is the row limit; 0 means no limit.
	MaxRows uint32
}

// Frontend marks Execute as a frontend message.
func (*Execute) Frontend() {}

// Decode decodes the body of an Execute message (without header) into e.
func (e *Execute) Decode(body []byte) error {
	portal, rest, ok := cstring(body)
	if !ok {
		return &MalformedError{Type: TypeExecute, Reason: "missing portal name terminator"}
	}
	if len(rest) != 4 {
		return &MalformedError{Type: TypeExecute, Reason: "row limit must be 4 bytes"}
	}
	e.Portal, e.MaxRows = portal, binary.BigEndian.Uint32(rest)
	return nil
}

// Encode appends the whole message, header included, to dst.
func (e *Execute) Encode(dst []byte) []byte {
	dst, sp := beginMessage(dst, TypeExecute)
	dst = append(dst, e.Portal...)
	dst = append(dst, 0)
	dst = binary.BigEndian.AppendUint32(dst, e.MaxRows)
	return finishMessage(dst, sp)
}
