package protocol

import "encoding/binary"

// Message type bytes of the frontend messages the proxy inspects or counts.
const (
	TypeQuery        byte = 'Q'
	TypeParse        byte = 'P'
	TypeBind         byte = 'B'
	TypeExecute      byte = 'E'
	TypeClose        byte = 'C'
	TypeSync         byte = 'S'
	TypeDescribe     byte = 'D'
	TypeFlush        byte = 'H'
	TypeFunctionCall byte = 'F'
	TypeTerminate    byte = 'X'
	TypeCopyData     byte = 'd'
	TypeCopyDone     byte = 'c'
	TypeCopyFail     byte = 'f'
	TypePassword     byte = 'p' // PasswordMessage, SASLInitialResponse, SASLResponse, GSSResponse
)

// Message type bytes of the backend messages the proxy inspects.
const (
	TypeAuthentication  byte = 'R'
	TypeBackendKeyData  byte = 'K'
	TypeReadyForQuery   byte = 'Z'
	TypeErrorResponse   byte = 'E'
	TypeNoticeResponse  byte = 'N'
	TypeParameterStatus byte = 'S'
	TypeNegotiateProto  byte = 'v'
	// TypeParameterDescription answers a Describe of a statement.
	TypeParameterDescription byte = 't'
)

// HeaderLen is the length of a regular message header: one type byte and a
// four-byte big-endian length that counts itself and the body.
const HeaderLen = 5

// PeekType returns the type byte of a frame, or 0 for an empty slice.
func PeekType(frame []byte) byte {
	if len(frame) == 0 {
		return 0
	}
	return frame[0]
}

// Body returns the body of a complete frame (the bytes after the header).
// It returns nil when frame is shorter than a header.
func Body(frame []byte) []byte {
	if len(frame) < HeaderLen {
		return nil
	}
	return frame[HeaderLen:]
}

// beginMessage appends a header with a placeholder length to dst and
// returns dst and the index of the length field.
func beginMessage(dst []byte, t byte) ([]byte, int) {
	dst = append(dst, t, 0, 0, 0, 0)
	return dst, len(dst) - 4
}

// finishMessage fills in the length field started by beginMessage.
func finishMessage(dst []byte, sp int) []byte {
	binary.BigEndian.PutUint32(dst[sp:], uint32(len(dst)-sp))
	return dst
}
