package protocol

// Close is a zero-allocation view of a Close ('C') message.
type Close struct {
	// ObjectType is 'S' for a prepared statement or 'P' for a portal.
	ObjectType byte
	// Name is the object's name; empty for the unnamed one.
	Name []byte
}

// Frontend marks Close as a frontend message.
func (*Close) Frontend() {}

// Decode decodes the body of a Close message (without header) into c.
func (c *Close) Decode(body []byte) error {
	if len(body) < 1 {
		return &MalformedError{Type: TypeClose, Reason: "missing object type"}
	}
	if body[0] != 'S' && body[0] != 'P' {
		return &MalformedError{Type: TypeClose, Reason: "object type must be 'S' or 'P'"}
	}
	name, rest, ok := cstring(body[1:])
	if !ok {
		return &MalformedError{Type: TypeClose, Reason: "missing name terminator"}
	}
	if len(rest) != 0 {
		return &MalformedError{Type: TypeClose, Reason: "trailing data"}
	}
	c.ObjectType, c.Name = body[0], name
	return nil
}

// Encode appends the whole message, header included, to dst.
func (c *Close) Encode(dst []byte) []byte {
	dst, sp := beginMessage(dst, TypeClose)
	dst = append(dst, c.ObjectType)
	dst = append(dst, c.Name...)
	dst = append(dst, 0)
	return finishMessage(dst, sp)
}
