package judgepool

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// MaxFrameSize bounds one frame either way. A request carries at most a
// schema and two queries, each already bounded by the proxy's
// max_message_size (at most 1 GiB).
const MaxFrameSize = 1<<30 + 64<<20

// Frames are a 4-byte big-endian payload length and a gob payload. The gob
// encoder and decoder persist for a process's lifetime, so type
// descriptions cross the pipe once (see BenchmarkCodec for gob against
// JSON).

// initMsg is the supervisor's first frame to a new worker.
type initMsg struct {
	MemoryLimit int64
	Judger      equivalence.JudgerOptions
}

// helloMsg is the worker's answer to initMsg: it is ready.
type helloMsg struct {
	PID int
}

// request asks for one verdict.
type request struct {
	ID uint64
	// ResetSchemas: forget every schema sent before (the supervisor
	// bounds what each worker keeps).
	ResetSchemas bool
	// SchemaKey is the schema's fingerprint; Schema is sent only the first
	// time a worker needs it.
	SchemaKey            string
	Schema               *catalog.Schema
	Reference, Candidate string
	Options              wireOptions
	// Timeout is the judgement's budget, relative: the two processes'
	// monotonic clocks are not comparable.
	Timeout time.Duration
}

// wireOptions are equivalence.Options without what cannot cross a process
// boundary: a custom Combiner is refused, and the GMN model is the shipped
// one (gmn/model.Default) when GMN is set.
type wireOptions struct {
	ColumnOrder       string
	TrustForeignKeys  *bool
	AcceptAssumptions []equivalence.AssumptionKind
	LikelyThreshold   float64
	MaxQueryBytes     int
	GMN               bool
	Refute            equivalence.RefuteOptions
}

// errKind classifies a worker's error so that the supervisor can rebuild
// an error that errors.Is recognises.
type errKind uint8

const (
	errNone errKind = iota
	errJudge
	errDeadline
	errCanceled
	errPanic
	errProtocol
)

// response is a worker's answer to a request.
type response struct {
	ID      uint64
	Verdict equivalence.Verdict
	Kind    errKind
	Err     string
	// Stats are the worker's judge cache counters after the judgement.
	Stats equivalence.JudgerStats
}

// encoder writes gob frames.
type encoder struct {
	w   io.Writer
	buf bytes.Buffer
	enc *gob.Encoder
}

func newEncoder(w io.Writer) *encoder {
	e := &encoder{w: w}
	e.enc = gob.NewEncoder(&e.buf)
	return e
}

func (e *encoder) send(v any) error {
	e.buf.Reset()
	e.buf.Write([]byte{0, 0, 0, 0})
	if err := e.enc.Encode(v); err != nil {
		return fmt.Errorf("judgepool: encoding %T: %w", v, err)
	}
	b := e.buf.Bytes()
	n := len(b) - 4
	if n > MaxFrameSize {
		return fmt.Errorf("judgepool: %T of %d bytes exceeds the frame limit of %d", v, n, MaxFrameSize)
	}
	binary.BigEndian.PutUint32(b, uint32(n))
	if _, err := e.w.Write(b); err != nil {
		return fmt.Errorf("judgepool: writing %T: %w", v, err)
	}
	if e.buf.Cap() > 1<<20 {
		// Do not keep a large schema's buffer. The gob encoder writes to
		// &e.buf, which stays the same variable.
		e.buf = bytes.Buffer{}
	}
	return nil
}

// decoder reads gob frames.
type decoder struct {
	r     io.Reader
	hdr   [4]byte
	frame bytes.Buffer // an io.ByteReader, so gob reads no further than a message
	dec   *gob.Decoder
}

func newDecoder(r io.Reader) *decoder {
	d := &decoder{r: r}
	d.dec = gob.NewDecoder(&d.frame)
	return d
}

// errFrame reports a malformed frame; the stream cannot be trusted after it.
var errFrame = errors.New("judgepool: malformed frame")

func (d *decoder) recv(v any) error {
	if _, err := io.ReadFull(d.r, d.hdr[:]); err != nil {
		return err // io.EOF: the peer closed between frames
	}
	n := int64(binary.BigEndian.Uint32(d.hdr[:]))
	if n == 0 || n > MaxFrameSize {
		return fmt.Errorf("%w: length %d outside 1..%d", errFrame, n, MaxFrameSize)
	}
	d.frame.Reset()
	// CopyN grows the buffer with the data actually read, so a lying
	// length costs nothing up front.
	if _, err := io.CopyN(&d.frame, d.r, n); err != nil {
		return fmt.Errorf("%w: %d-byte payload: %v", errFrame, n, err)
	}
	if err := d.dec.Decode(v); err != nil {
		return fmt.Errorf("%w: decoding %T: %v", errFrame, v, err)
	}
	if d.frame.Len() != 0 {
		return fmt.Errorf("%w: %d bytes after %T", errFrame, d.frame.Len(), v)
	}
	if d.frame.Cap() > 1<<20 {
		d.frame = bytes.Buffer{} // the gob decoder reads &d.frame, which stays the same variable
	}
	return nil
}
