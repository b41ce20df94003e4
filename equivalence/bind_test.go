package equivalence_test

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/equivalence"
)

func be16(v uint16) []byte { return binary.BigEndian.AppendUint16(nil, v) }
func be32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }
func be64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

// numericBin is numeric's binary form of the given base-10000 digits.
func numericBin(weight int16, sign, dscale uint16, digits ...uint16) []byte {
	b := be16(uint16(len(digits)))
	b = append(b, be16(uint16(weight))...)
	b = append(b, be16(sign)...)
	b = append(b, be16(dscale)...)
	for _, d := range digits {
		b = append(b, be16(d)...)
	}
	return b
}

func TestParamLiteral(t *testing.T) {
	tests := []struct {
		name string
		p    equivalence.BoundParam
		want string
		err  bool
	}{
		{"text unspecified", equivalence.BoundParam{Value: []byte("5")}, "'5'", false},
		{"quote", equivalence.BoundParam{OID: 25, Value: []byte("O'Brien")}, "('O''Brien'::text)", false},
		{"backslash", equivalence.BoundParam{OID: 25, Value: []byte(`a\'b`)}, `('a\''b'::text)`, false},
		{"null typed", equivalence.BoundParam{OID: 23}, "(NULL::int4)", false},
		{"null unspecified", equivalence.BoundParam{}, "NULL", false},
		{"int4 text", equivalence.BoundParam{OID: 23, Value: []byte("-7")}, "('-7'::int4)", false},
		{"int4 binary", equivalence.BoundParam{OID: 23, Binary: true, Value: be32(uint32(0xFFFFFFF9))}, "('-7'::int4)", false},
		{"int8 binary", equivalence.BoundParam{OID: 20, Binary: true, Value: be64(1 << 40)}, "('1099511627776'::int8)", false},
		{"int2 binary", equivalence.BoundParam{OID: 21, Binary: true, Value: be16(300)}, "('300'::int2)", false},
		{"bool binary", equivalence.BoundParam{OID: 16, Binary: true, Value: []byte{1}}, "('true'::bool)", false},
		{"float8 binary", equivalence.BoundParam{OID: 701, Binary: true, Value: be64(math.Float64bits(0.1))}, "('0.1'::float8)", false},
		{"float4 binary", equivalence.BoundParam{OID: 700, Binary: true, Value: be32(math.Float32bits(0.1))}, "('0.1'::float4)", false},
		{"float8 NaN", equivalence.BoundParam{OID: 701, Binary: true, Value: be64(math.Float64bits(math.NaN()))}, "('NaN'::float8)", false},
		{"date binary", equivalence.BoundParam{OID: 1082, Binary: true, Value: be32(366)}, "('2001-01-01'::date)", false},
		{"timestamp binary", equivalence.BoundParam{OID: 1114, Binary: true, Value: be64(86400_000_000 + 1)}, "('2000-01-02 00:00:00.000001'::timestamp)", false},
		{"timestamptz binary", equivalence.BoundParam{OID: 1184, Binary: true, Value: be64(0)}, "('2000-01-01 00:00:00+00'::timestamptz)", false},
		{"numeric binary", equivalence.BoundParam{OID: 1700, Binary: true, Value: numericBin(0, 0x4000, 2, 12, 3400)}, "('-12.34'::numeric)", false},
		{"numeric large", equivalence.BoundParam{OID: 1700, Binary: true, Value: numericBin(2, 0, 0, 1)}, "('100000000'::numeric)", false},
		{"numeric small", equivalence.BoundParam{OID: 1700, Binary: true, Value: numericBin(-2, 0, 6, 500)}, "('0.000005'::numeric)", false},
		{"numeric zero", equivalence.BoundParam{OID: 1700, Binary: true, Value: numericBin(0, 0, 1)}, "('0.0'::numeric)", false},
		{"uuid binary", equivalence.BoundParam{OID: 2950, Binary: true, Value: []byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0}}, "('12345678-9abc-def0-1234-56789abcdef0'::uuid)", false},
		{"bytea binary", equivalence.BoundParam{OID: 17, Binary: true, Value: []byte{0, 0xff}}, `('\x00ff'::bytea)`, false},
		{"jsonb binary", equivalence.BoundParam{OID: 3802, Binary: true, Value: []byte("\x01{\"a\": 1}")}, `('{"a": 1}'::jsonb)`, false},
		{"short int4", equivalence.BoundParam{OID: 23, Binary: true, Value: []byte{1}}, "", true},
		{"bad numeric digit", equivalence.BoundParam{OID: 1700, Binary: true, Value: numericBin(0, 0, 0, 10000)}, "", true},
		{"unknown oid binary", equivalence.BoundParam{OID: 600, Binary: true, Value: []byte{1}}, "", true},
		{"unknown oid text", equivalence.BoundParam{OID: 600, Value: []byte("(1,2)")}, "", true},
		{"unspecified binary", equivalence.BoundParam{Binary: true, Value: []byte{1}}, "", true},
		{"NUL byte", equivalence.BoundParam{OID: 25, Value: []byte("a\x00b")}, "", true},
		{"invalid UTF-8", equivalence.BoundParam{OID: 25, Value: []byte{0xff}}, "", true},
	}
	for _, tc := range tests {
		got, err := equivalence.ParamLiteral(tc.p)
		if tc.err {
			if !errors.Is(err, equivalence.ErrBindValue) {
				t.Errorf("%s: %q, %v; want ErrBindValue", tc.name, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

func TestBindParams(t *testing.T) {
	txt := func(s string) equivalence.BoundParam { return equivalence.BoundParam{Value: []byte(s)} }
	tests := []struct {
		sql    string
		params []equivalence.BoundParam
		want   string
		err    bool
	}{
		{"SELECT * FROM dogs WHERE age > $1 AND name = $2", []equivalence.BoundParam{{OID: 23, Value: []byte("5")}, txt("Rex")},
			"SELECT * FROM dogs WHERE age > ('5'::int4) AND name = 'Rex'", false},
		// A placeholder in a string, a comment, a dollar quote or an
		// identifier is not one.
		{"SELECT '$1', $1 /* $1 */, $$ $1 $$, \"$1\" -- $1\n", []equivalence.BoundParam{txt("x")},
			"SELECT '$1', 'x' /* $1 */, $$ $1 $$, \"$1\" -- $1\n", false},
		{"SELECT $2, $1, $2", []equivalence.BoundParam{txt("a"), txt("b")}, "SELECT 'b', 'a', 'b'", false},
		{"SELECT -$1", []equivalence.BoundParam{{OID: 23, Value: []byte("-5")}}, "SELECT -('-5'::int4)", false},
		{"SELECT $1", []equivalence.BoundParam{{OID: 25, Value: []byte("'); DROP TABLE dogs; --")}},
			"SELECT ('''); DROP TABLE dogs; --'::text)", false},
		{"SELECT $2", []equivalence.BoundParam{txt("a")}, "", true},
		{"SELECT 1", nil, "SELECT 1", false},
	}
	for _, tc := range tests {
		got, err := equivalence.BindParams(tc.sql, tc.params)
		if tc.err {
			if !errors.Is(err, equivalence.ErrBindValue) {
				t.Errorf("%s: %q, %v; want ErrBindValue", tc.sql, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.sql, got, err, tc.want)
		}
	}
}

// FuzzBindParams: whatever the value, the bound statement holds no
// placeholder and parses as one statement where the original did, so a
// value never changes the statement's shape.
func FuzzBindParams(f *testing.F) {
	f.Add("SELECT * FROM t WHERE a = $1", uint32(25), false, []byte("x'; DROP TABLE t; --"))
	f.Add("SELECT $1 || 'a'", uint32(0), false, []byte(`\'`))
	f.Add("SELECT $1", uint32(1700), true, numericBin(3, 0, 2, 1, 2))
	f.Add("SELECT $1 FROM t WHERE $1 > 0", uint32(23), true, be32(7))
	f.Add("SELECT $$ $1 $$, $1", uint32(1082), true, be32(1))
	f.Fuzz(func(t *testing.T, sql string, oid uint32, bin bool, val []byte) {
		p := equivalence.BoundParam{OID: oid, Binary: bin, Value: val}
		out, err := equivalence.BindParams(sql, []equivalence.BoundParam{p})
		if err != nil {
			return
		}
		before, err := pg.Parse(sql)
		if err != nil || len(before.Stmts) != 1 {
			return
		}
		after, err := pg.Parse(out)
		if err != nil {
			t.Fatalf("bound %q into %q: %q does not parse: %v", val, sql, out, err)
		}
		if len(after.Stmts) != 1 {
			t.Fatalf("bound %q into %q: %q has %d statements", val, sql, out, len(after.Stmts))
		}
		if res, err := pg.Scan(out); err == nil {
			for _, tk := range res.Tokens {
				if tk.Token == pg.Token_PARAM {
					t.Fatalf("bound %q into %q: %q still has a placeholder", val, sql, out)
				}
			}
		}
	})
}
