package protocol

// Sync is a Sync ('S') message; it has no body.
type Sync struct{}

// Frontend marks Sync as a frontend message.
func (*Sync) Frontend() {}

// Decode checks that the body of a Sync message is empty.
func (*Sync) Decode(body []byte) error {
	if len(body) != 0 {
		return &MalformedError{Type: TypeSync, Reason: "unexpected body"}
	}
	return nil
}

// Encode appends the whole message, header included, to dst.
func (*Sync) Encode(dst []byte) []byte {
	return append(dst, TypeSync, 0, 0, 0, 4)
}
