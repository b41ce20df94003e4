package protocol

import (
	"bytes"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// TestViewsMatchPgproto3 checks that the zero-allocation views decode what
// pgproto3 encodes, and encode what pgproto3 decodes.
func TestViewsMatchPgproto3(t *testing.T) {
	enc := func(m pgproto3.FrontendMessage) []byte {
		b, err := m.Encode(nil)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	parseMsg := enc(&pgproto3.Parse{Name: "s1", Query: "select $1::int, $2", ParameterOIDs: []uint32{23, 25}})
	var p Parse
	if err := p.Decode(Body(parseMsg)); err != nil {
		t.Fatal(err)
	}
	if string(p.Name) != "s1" || string(p.SQL) != "select $1::int, $2" || p.NumParams() != 2 || p.ParamOID(1) != 25 {
		t.Fatalf("Parse decoded %+v", p)
	}
	if got := p.Encode(nil); !bytes.Equal(got, parseMsg) {
		t.Fatalf("Parse re-encoded %q, want %q", got, parseMsg)
	}

	bindMsg := enc(&pgproto3.Bind{DestinationPortal: "p", PreparedStatement: "s1",
		ParameterFormatCodes: []int16{0}, Parameters: [][]byte{[]byte("42"), nil}, ResultFormatCodes: []int16{1, 0}})
	var b Bind
	if err := b.Decode(Body(bindMsg)); err != nil {
		t.Fatal(err)
	}
	if string(b.Portal) != "p" || string(b.Statement) != "s1" || b.NumParams != 2 {
		t.Fatalf("Bind decoded %+v", b)
	}
	if got := b.Encode(nil); !bytes.Equal(got, bindMsg) {
		t.Fatalf("Bind re-encoded %q, want %q", got, bindMsg)
	}

	execMsg := enc(&pgproto3.Execute{Portal: "p", MaxRows: 7})
	var e Execute
	if err := e.Decode(Body(execMsg)); err != nil || string(e.Portal) != "p" || e.MaxRows != 7 {
		t.Fatalf("Execute decoded %+v, %v", e, err)
	}
	if got := e.Encode(nil); !bytes.Equal(got, execMsg) {
		t.Fatalf("Execute re-encoded %q", got)
	}

	closeMsg := enc(&pgproto3.Close{ObjectType: 'S', Name: "s1"})
	var c Close
	if err := c.Decode(Body(closeMsg)); err != nil || c.ObjectType != 'S' || string(c.Name) != "s1" {
		t.Fatalf("Close decoded %+v, %v", c, err)
	}
	if got := c.Encode(nil); !bytes.Equal(got, closeMsg) {
		t.Fatalf("Close re-encoded %q", got)
	}

	queryMsg := enc(&pgproto3.Query{String: "select 1; select 2"})
	var q Query
	if err := q.Decode(Body(queryMsg)); err != nil || string(q.SQL) != "select 1; select 2" {
		t.Fatalf("Query decoded %q, %v", q.SQL, err)
	}
	if got := q.Encode(nil); !bytes.Equal(got, queryMsg) {
		t.Fatalf("Query re-encoded %q", got)
	}

	syncMsg := enc(&pgproto3.Sync{})
	var s Sync
	if err := s.Decode(Body(syncMsg)); err != nil {
		t.Fatal(err)
	}
	if got := s.Encode(nil); !bytes.Equal(got, syncMsg) {
		t.Fatalf("Sync re-encoded %q", got)
	}
}

func TestViewsRejectMalformed(t *testing.T) {
	for _, tc := range []struct {
		name string
		dec  func([]byte) error
		body []byte
	}{
		{"query without terminator", new(Query).Decode, []byte("select 1")},
		{"query trailing data", new(Query).Decode, []byte("select 1\x00x")},
		{"parse count mismatch", new(Parse).Decode, []byte("s\x00q\x00\x00\x02\x00\x00\x00\x17")},
		{"bind negative length", new(Bind).Decode, []byte("\x00\x00\x00\x00\x00\x01\xff\xff\xff\xfe\x00\x00")},
		{"bind value overruns", new(Bind).Decode, []byte("\x00\x00\x00\x00\x00\x01\x00\x00\x00\x09ab\x00\x00")},
		{"execute short", new(Execute).Decode, []byte("p\x00\x00\x01")},
		{"close bad type", new(Close).Decode, []byte("Xname\x00")},
		{"sync body", new(Sync).Decode, []byte("x")},
	} {
		err := tc.dec(tc.body)
		var m *MalformedError
		if !errors.As(err, &m) || !IsProtocolViolation(err) {
			t.Errorf("%s: err = %v, want *MalformedError", tc.name, err)
		}
	}
}
