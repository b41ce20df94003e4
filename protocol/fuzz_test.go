package protocol

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// FuzzDecodeStartup checks that no startup packet panics the decoder, that
// everything accepted re-encodes, and that errors are typed.
func FuzzDecodeStartup(f *testing.F) {
	for _, m := range []pgproto3.FrontendMessage{
		&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "u", "database": "d"}},
		&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion32, Parameters: map[string]string{"user": "u"}},
		&pgproto3.SSLRequest{},
		&pgproto3.GSSEncRequest{},
		&pgproto3.CancelRequest{ProcessID: 1, SecretKey: []byte{1, 2, 3, 4}},
	} {
		b, _ := m.Encode(nil)
		f.Add(b)
	}
	f.Add([]byte{0, 0, 0, 8, 0, 2, 0, 0})
	f.Fuzz(func(t *testing.T, packet []byte) {
		msg, err := DecodeStartup(packet)
		if err != nil {
			if !IsProtocolViolation(err) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		b, err := msg.Encode(nil)
		if err != nil {
			t.Fatalf("re-encode %T: %v", msg, err)
		}
		again, err := DecodeStartup(b)
		if err != nil {
			t.Fatalf("decode of re-encoded %T: %v", msg, err)
		}
		// Compare decoded values: pgproto3 encodes startup parameters in
		// map order, so bytes may differ.
		if !reflect.DeepEqual(msg, again) {
			t.Fatalf("round trip changed %#v to %#v", msg, again)
		}
		// ReadStartup agrees with DecodeStartup on a stream.
		if _, err := ReadStartup(bytes.NewReader(packet)); err != nil {
			t.Fatalf("ReadStartup rejected what DecodeStartup accepted: %v", err)
		}
	})
}

// FuzzReader feeds arbitrary streams to the frame reader: Next and Forward
// must agree, never panic, and report typed errors.
func FuzzReader(f *testing.F) {
	f.Add([]byte("Q\x00\x00\x00\x0dselect 1\x00S\x00\x00\x00\x04"), 0)
	f.Add([]byte("Q\x00\x00\x00\x03"), 0)
	f.Add([]byte("d\x00\x00\x01\x00"), 16)
	f.Fuzz(func(t *testing.T, stream []byte, max int) {
		if max < 0 {
			max = -max
		}
		a := NewReader(bytes.NewReader(stream), 16, max) // tiny buffer: exercise chunking
		b := NewReader(bytes.NewReader(stream), 0, max)
		var fwd bytes.Buffer
		for {
			frame, errA := a.Next()
			fwd.Reset()
			_, errB := b.Forward(&fwd)
			if (errA == nil) != (errB == nil) {
				t.Fatalf("Next err %v, Forward err %v", errA, errB)
			}
			if errA != nil {
				if errA != io.EOF && !errors.Is(errA, io.ErrUnexpectedEOF) && !IsProtocolViolation(errA) {
					t.Fatalf("untyped error %T: %v", errA, errA)
				}
				return
			}
			if !bytes.Equal(frame, fwd.Bytes()) {
				t.Fatalf("Next %q != Forward %q", frame, fwd.Bytes())
			}
			if max > 0 && len(frame)-1 > max {
				t.Fatalf("frame of %d bytes passed max %d", len(frame), max)
			}
		}
	})
}

type view interface {
	Decode([]byte) error
	Encode([]byte) []byte
}

// FuzzFrontendViews decodes arbitrary bodies with each zero-allocation
// view; anything accepted must re-encode to the same frame.
func FuzzFrontendViews(f *testing.F) {
	for _, m := range []pgproto3.FrontendMessage{
		&pgproto3.Query{String: "select 1"},
		&pgproto3.Parse{Name: "s", Query: "select $1", ParameterOIDs: []uint32{23}},
		&pgproto3.Bind{DestinationPortal: "p", PreparedStatement: "s", ParameterFormatCodes: []int16{1},
			Parameters: [][]byte{{0, 0, 0, 1}, nil}, ResultFormatCodes: []int16{0}},
		&pgproto3.Execute{Portal: "p", MaxRows: 10},
		&pgproto3.Close{ObjectType: 'P', Name: "p"},
		&pgproto3.Sync{},
	} {
		b, _ := m.Encode(nil)
		f.Add(b[0], b[HeaderLen:])
	}
	f.Fuzz(func(t *testing.T, typ byte, body []byte) {
		var v view
		switch typ {
		case TypeQuery:
			v = &Query{}
		case TypeParse:
			v = &Parse{}
		case TypeBind:
			v = &Bind{}
		case TypeExecute:
			v = &Execute{}
		case TypeClose:
			v = &Close{}
		case TypeSync:
			v = &Sync{}
		default:
			return
		}
		if err := v.Decode(body); err != nil {
			if !IsProtocolViolation(err) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		want := frame(typ, body)
		if got := v.Encode(nil); !bytes.Equal(got, want) {
			t.Fatalf("re-encoded %q, want %q", got, want)
		}
	})
}
