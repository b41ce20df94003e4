package protocol

import (
	"errors"
	"fmt"
	"strconv"
)

// ErrUnsupported is wrapped by errors for startup requests the proxy does not
// implement (unknown protocol versions, direct TLS).
var ErrUnsupported = errors.New("unsupported")

// MessageTooLargeError reports a message whose declared length exceeds the
// configured maximum. The stream cannot continue after it.
type MessageTooLargeError struct {
	Type byte // message type; 0 for a startup packet
	Size int  // declared length (length field value)
	Max  int  // configured maximum
}

func (e *MessageTooLargeError) Error() string {
	return fmt.Sprintf("protocol: message %s of %d bytes exceeds the maximum of %d bytes", typeName(e.Type), e.Size, e.Max)
}

// MalformedError reports a message that does not follow the wire format,
// such as a length field smaller than 4 or a missing string terminator.
type MalformedError struct {
	Type   byte // message type; 0 for a startup packet
	Reason string
}

func (e *MalformedError) Error() string {
	return fmt.Sprintf("protocol: malformed message %s: %s", typeName(e.Type), e.Reason)
}

// IsProtocolViolation reports whether err means the peer broke the wire
// format (as opposed to I/O errors), so that the proxy should answer with a
// protocol_violation error before closing.
func IsProtocolViolation(err error) bool {
	var tooLarge *MessageTooLargeError
	var malformed *MalformedError
	return errors.As(err, &tooLarge) || errors.As(err, &malformed)
}

func typeName(t byte) string {
	if t == 0 {
		return "startup"
	}
	if t >= 0x20 && t < 0x7f {
		return strconv.QuoteRune(rune(t))
	}
	return fmt.Sprintf("0x%02x", t)
}
