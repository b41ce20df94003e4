package protocol

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

func frame(t byte, body []byte) []byte {
	dst, sp := beginMessage(nil, t)
	dst = append(dst, body...)
	return finishMessage(dst, sp)
}

func TestReaderNextAndForward(t *testing.T) {
	small := frame('Q', []byte("select 1\x00"))
	big := frame('d', bytes.Repeat([]byte("x"), 100_000)) // larger than the buffer
	var stream []byte
	stream = append(stream, small...)
	stream = append(stream, big...)
	stream = append(stream, small...)

	r := NewReader(bytes.NewReader(stream), 4096, 0)
	got, err := r.Next()
	if err != nil || !bytes.Equal(got, small) {
		t.Fatalf("Next = %q, %v; want %q", got, err, small)
	}
	got, err = r.Next()
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("Next of big frame: len %d, %v; want len %d", len(got), err, len(big))
	}
	var out bytes.Buffer
	typ, err := r.Forward(&out)
	if err != nil || typ != 'Q' || !bytes.Equal(out.Bytes(), small) {
		t.Fatalf("Forward = %q, %q, %v", typ, out.Bytes(), err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("Next at end = %v, want io.EOF", err)
	}

	// Forward streams a frame larger than the buffer in chunks.
	r = NewReader(bytes.NewReader(big), 4096, 0)
	out.Reset()
	if _, err := r.Forward(&out); err != nil || !bytes.Equal(out.Bytes(), big) {
		t.Fatalf("Forward big: len %d, %v", out.Len(), err)
	}
}

func TestReaderErrors(t *testing.T) {
	tests := []struct {
		name  string
		input []byte
		max   int
		check func(error) bool
	}{
		{"too large", frame('Q', make([]byte, 100)), 50, func(err error) bool {
			var e *MessageTooLargeError
			return errors.As(err, &e) && e.Type == 'Q' && e.Size == 104 && e.Max == 50
		}},
		{"length below 4", []byte{'Q', 0, 0, 0, 3}, 0, func(err error) bool {
			var e *MalformedError
			return errors.As(err, &e)
		}},
		{"negative length", []byte{'Q', 0xff, 0xff, 0xff, 0xff}, 0, func(err error) bool {
			var e *MalformedError
			return errors.As(err, &e)
		}},
		{"truncated header", []byte{'Q', 0, 0}, 0, func(err error) bool {
			return errors.Is(err, io.ErrUnexpectedEOF)
		}},
		{"truncated body", []byte{'Q', 0, 0, 0, 10, 'a'}, 0, func(err error) bool {
			return errors.Is(err, io.ErrUnexpectedEOF)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(bytes.NewReader(tc.input), 0, tc.max)
			_, err := r.Next()
			if !tc.check(err) {
				t.Fatalf("Next error = %v (%T)", err, err)
			}
			r = NewReader(bytes.NewReader(tc.input), 0, tc.max)
			if _, err := r.Forward(io.Discard); !tc.check(err) {
				t.Fatalf("Forward error = %v (%T)", err, err)
			}
		})
	}
}

func TestReaderReset(t *testing.T) {
	a, b := frame('Q', []byte("a\x00")), frame('Q', []byte("b\x00"))
	r := NewReader(bytes.NewReader(append(append([]byte(nil), a...), a...)), 4096, 0)
	if got, err := r.Next(); err != nil || !bytes.Equal(got, a) {
		t.Fatalf("Next = %q, %v", got, err)
	}
	r.Reset(bytes.NewReader(b)) // the second a, buffered, is dropped
	if got, err := r.Next(); err != nil || !bytes.Equal(got, b) {
		t.Fatalf("Next after Reset = %q, %v; want %q", got, err, b)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("Next at end = %v, want io.EOF", err)
	}
}

func TestReaderForwardRaw(t *testing.T) {
	small := frame('Z', []byte("I"))
	big := frame('D', bytes.Repeat([]byte("x"), 10_000)) // larger than the buffer
	tests := []struct {
		name   string
		stream []byte
		skip   int
		want   error
	}{
		{"rest of a small frame", append(append([]byte(nil), small[2:]...), small...), len(small) - 2, nil},
		{"rest of a frame larger than the buffer", append(append([]byte(nil), big[7:]...), small...), len(big) - 7, nil},
		{"nothing to skip", small, 0, nil},
		{"stream ends inside the rest", big[7:100], len(big) - 7, io.ErrUnexpectedEOF},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(bytes.NewReader(tc.stream), 4096, 0)
			var out bytes.Buffer
			err := r.ForwardRaw(&out, tc.skip)
			if !errors.Is(err, tc.want) {
				t.Fatalf("ForwardRaw error = %v, want %v", err, tc.want)
			}
			if err != nil {
				return
			}
			if !bytes.Equal(out.Bytes(), tc.stream[:tc.skip]) {
				t.Fatalf("ForwardRaw copied %d bytes, want the first %d of the stream", out.Len(), tc.skip)
			}
			// The reader is now at a frame boundary.
			if got, err := r.Next(); err != nil || !bytes.Equal(got, small) {
				t.Fatalf("Next after ForwardRaw = %q, %v; want %q", got, err, small)
			}
		})
	}
}

// loopReader replays the same bytes forever without allocating.
type loopReader struct {
	data []byte
	off  int
}

func (l *loopReader) Read(p []byte) (int, error) {
	n := copy(p, l.data[l.off:])
	l.off = (l.off + n) % len(l.data)
	return n, nil
}

func TestReaderZeroAlloc(t *testing.T) {
	var stream []byte
	stream = append(stream, frame('D', bytes.Repeat([]byte("r"), 200))...)
	stream = append(stream, frame('Q', []byte("select 1\x00"))...)
	stream = append(stream, frame('d', bytes.Repeat([]byte("c"), 40_000))...) // > buffer: chunked
	r := NewReader(&loopReader{data: stream}, 8192, 0)
	var q Query
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := r.Forward(io.Discard); err != nil {
			t.Fatal(err)
		}
		f, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if err := q.Decode(Body(f)); err != nil {
			t.Fatal(err)
		}
		if string(q.SQL) != "select 1" { // valid until the next call on r
			t.Fatalf("decoded %q", q.SQL)
		}
		if _, err := r.Forward(io.Discard); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("allocations per forwarded message group = %v, want 0", allocs)
	}
}
