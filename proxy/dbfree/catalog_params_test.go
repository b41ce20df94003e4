package dbfree

import (
	"encoding/binary"
	"math"
	"testing"
)

// TestBinaryParamText: binary catalog query parameters read as their text
// form; a type not listed, or a value of the wrong length, is refused.
func TestBinaryParamText(t *testing.T) {
	be := func(n int, v uint64) []byte {
		b := make([]byte, 8)
		binary.BigEndian.PutUint64(b, v)
		return b[8-n:]
	}
	for _, tc := range []struct {
		oid  uint32
		v    []byte
		want string
		ok   bool
	}{
		{23, be(4, 5), "5", true},
		{23, be(4, uint64(uint32(0xfffffffd))), "-3", true},
		{20, be(8, 2200), "2200", true},
		{21, be(2, 0xffff), "-1", true},
		{26, be(4, 4000000000), "4000000000", true},
		{16, []byte{1}, "t", true},
		{701, be(8, math.Float64bits(2.5)), "2.5", true},
		{25, []byte("pg_class"), "pg_class", true},
		{23, be(8, 5), "", false},           // wrong length
		{2950, make([]byte, 16), "", false}, // uuid: not read
		{0, be(4, 5), "", false},            // no type given
	} {
		got, ok := binaryParamText(tc.oid, tc.v)
		if got != tc.want || ok != tc.ok {
			t.Errorf("OID %d %x: got %q %v, want %q %v", tc.oid, tc.v, got, ok, tc.want, tc.ok)
		}
	}
}
