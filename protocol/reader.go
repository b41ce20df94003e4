package protocol

import (
	"bufio"
	"encoding/binary"
	"io"
)

// DefaultBufferSize is the read buffer size used when NewReader is given 0.
// Frames up to this size are handed out without copying.
const DefaultBufferSize = 32 * 1024

// keepBufferCap is the largest overflow buffer a Reader keeps after a
// smaller message follows.
const keepBufferCap = 1 << 20

// Reader reads framed (typed) messages from a stream. It peeks at each
// header, so a frame can be forwarded raw (Forward) or handed out whole
// (Next) without decoding the messages the caller does not inspect.
//
// A Reader is not safe for concurrent use.
type Reader struct {
	br  *bufio.Reader
	max int
	// buf holds frames larger than br's buffer; it is reused and grows up to
	// max.
	buf []byte
}

// NewReader returns a Reader on r with a read buffer of bufSize bytes
// (DefaultBufferSize if 0). maxMessageSize bounds the length field of every
// message; 0 means no bound.
func NewReader(r io.Reader, bufSize, maxMessageSize int) *Reader {
	if bufSize <= 0 {
		bufSize = DefaultBufferSize
	}
	return &Reader{br: bufio.NewReaderSize(r, bufSize), max: maxMessageSize}
}

// Reset makes r read from src, discarding buffered data, and keeps its
// buffer, so that Readers can be pooled.
func (r *Reader) Reset(src io.Reader) {
	r.br.Reset(src)
	if cap(r.buf) > keepBufferCap {
		r.buf = nil
	}
}

// SetMaxMessageSize changes the bound on the length field (0: none).
func (r *Reader) SetMaxMessageSize(n int) { r.max = n }

// Buffered returns the number of bytes that can be read without blocking.
func (r *Reader) Buffered() int { return r.br.Buffered() }

// PeekHeader returns the type byte and the total length (header included)
// of the next frame without consuming it. It returns *MalformedError for a
// length field below 4 and *MessageTooLargeError above the maximum.
func (r *Reader) PeekHeader() (typ byte, frameLen int, err error) {
	hdr, err := r.br.Peek(HeaderLen)
	if err != nil {
		if err == io.EOF && len(hdr) > 0 {
			err = io.ErrUnexpectedEOF
		}
		return 0, 0, err
	}
	n := binary.BigEndian.Uint32(hdr[1:])
	if n < 4 || n > 1<<31-1 {
		return hdr[0], 0, &MalformedError{Type: hdr[0], Reason: "invalid length field"}
	}
	if r.max > 0 && int(n) > r.max {
		return hdr[0], 0, &MessageTooLargeError{Type: hdr[0], Size: int(n), Max: r.max}
	}
	return hdr[0], 1 + int(n), nil
}

// Peek returns the next n bytes without consuming them (n at most the
// buffer size). The slice is valid until the next call on r.
func (r *Reader) Peek(n int) ([]byte, error) { return r.br.Peek(n) }

// Next returns the next frame, header included. The slice aliases the
// Reader's buffers and is valid until the next call on r.
func (r *Reader) Next() ([]byte, error) {
	_, n, err := r.PeekHeader()
	if err != nil {
		return nil, err
	}
	if n <= r.br.Size() {
		if cap(r.buf) > keepBufferCap {
			r.buf = nil // do not hold on to one huge message's memory
		}
		frame, err := r.br.Peek(n)
		if err != nil {
			return nil, unexpectedEOF(err)
		}
		_, _ = r.br.Discard(n) // cannot fail: n bytes are buffered
		return frame, nil
	}
	if cap(r.buf) < n {
		r.buf = make([]byte, n)
	}
	frame := r.buf[:n]
	if _, err := io.ReadFull(r.br, frame); err != nil {
		return nil, unexpectedEOF(err)
	}
	return frame, nil
}

// Forward copies the next frame to w without decoding it, in chunks of at
// most the buffer size, so frames of any length stream through bounded
// memory. It returns the frame's type.
func (r *Reader) Forward(w io.Writer) (byte, error) {
	typ, n, err := r.PeekHeader()
	if err != nil {
		return typ, err
	}
	for n > 0 {
		chunk := min(n, r.br.Size())
		b, err := r.br.Peek(chunk)
		if err != nil {
			return typ, unexpectedEOF(err)
		}
		if _, err := w.Write(b); err != nil {
			return typ, err
		}
		_, _ = r.br.Discard(chunk)
		n -= chunk
	}
	return typ, nil
}

// ForwardRaw copies the next n bytes to w without looking for a header:
// they are the rest of a frame whose start was forwarded by other means
// (the proxy's event-loop relay hands a stream over mid-frame), so that
// PeekHeader then starts at the next frame. It streams in chunks of at most
// the buffer size.
func (r *Reader) ForwardRaw(w io.Writer, n int) error {
	for n > 0 {
		// Pass on what has arrived rather than wait for a full chunk.
		if r.br.Buffered() == 0 {
			if _, err := r.br.Peek(1); err != nil {
				return unexpectedEOF(err)
			}
		}
		chunk := min(n, r.br.Buffered())
		b, _ := r.br.Peek(chunk) // cannot fail: chunk bytes are buffered
		if _, err := w.Write(b); err != nil {
			return err
		}
		_, _ = r.br.Discard(chunk)
		n -= chunk
	}
	return nil
}

func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
