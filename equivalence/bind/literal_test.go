package bind

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/internal/pgtypes"
)

func be16(v int16) []byte { return binary.BigEndian.AppendUint16(nil, uint16(v)) }
func be32(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
func be64(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

// numericBin is numeric's binary form of the given base-10000 digits.
func numericBin(weight, sign, dscale int16, digits ...int16) []byte {
	b := append(be16(int16(len(digits))), be16(weight)...)
	b = append(b, be16(sign)...)
	b = append(b, be16(dscale)...)
	for _, d := range digits {
		b = append(b, be16(d)...)
	}
	return b
}

// txt is a text-format value of unspecified type.
func txt(s string) Param { return Param{Value: []byte(s)} }

func TestLiteral(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Param
		want string
		err  bool
	}{
		{name: "untyped text", p: txt("42"), want: "'42'"},
		{name: "untyped quote", p: txt("O'Brien"), want: "'O''Brien'"},
		{name: "text quote", p: Param{OID: pgtypes.Text, Value: []byte("O'Brien")}, want: "'O''Brien'"},
		{name: "backslash stays", p: Param{OID: pgtypes.Text, Value: []byte(`a\'b`)}, want: `'a\''b'`},
		{name: "comment text stays in the string", p: Param{OID: pgtypes.Varchar, Value: []byte("x'/* */--")}, want: "'x''/* */--'"},
		{name: "int4 text", p: Param{OID: pgtypes.Int4, Value: []byte("-17")}, want: "-17"},
		{name: "int4 text with junk", p: Param{OID: pgtypes.Int4, Value: []byte("1; DROP TABLE x")}, want: "CAST('1; DROP TABLE x' AS int4)"},
		{name: "numeric exponent", p: Param{OID: pgtypes.Numeric, Value: []byte("1.5e-3")}, want: "1.5e-3"},
		{name: "float NaN", p: Param{OID: pgtypes.Float8, Value: []byte("NaN")}, want: "CAST('NaN' AS float8)"},
		{name: "bool text", p: Param{OID: pgtypes.Bool, Value: []byte("t")}, want: "TRUE"},
		{name: "bool odd", p: Param{OID: pgtypes.Bool, Value: []byte("maybe")}, want: "CAST('maybe' AS bool)"},
		{name: "date text", p: Param{OID: pgtypes.Date, Value: []byte("2024-02-29")}, want: "CAST('2024-02-29' AS date)"},
		{name: "NULL untyped", p: Param{}, want: "NULL"},
		{name: "NULL int4", p: Param{OID: pgtypes.Int4}, want: "CAST(NULL AS int4)"},
		{name: "binary int2", p: Param{OID: pgtypes.Int2, Binary: true, Value: be16(-3)}, want: "-3"},
		{name: "binary int2 300", p: Param{OID: pgtypes.Int2, Binary: true, Value: be16(300)}, want: "300"},
		{name: "binary int4", p: Param{OID: pgtypes.Int4, Binary: true, Value: be32(math.MinInt32)}, want: "-2147483648"},
		{name: "binary int4 -7", p: Param{OID: pgtypes.Int4, Binary: true, Value: be32(-7)}, want: "-7"},
		{name: "binary int8", p: Param{OID: pgtypes.Int8, Binary: true, Value: be64(1 << 40)}, want: "1099511627776"},
		{name: "binary float8", p: Param{OID: pgtypes.Float8, Binary: true, Value: be64(int64(math.Float64bits(0.1)))}, want: "0.1"},
		{name: "binary float4", p: Param{OID: pgtypes.Float4, Binary: true, Value: be32(int32(math.Float32bits(0.1)))}, want: "0.1"},
		{name: "binary float8 NaN", p: Param{OID: pgtypes.Float8, Binary: true, Value: be64(int64(math.Float64bits(math.NaN())))}, want: "CAST('NaN' AS float8)"},
		{name: "binary float8 inf", p: Param{OID: pgtypes.Float8, Binary: true, Value: be64(int64(math.Float64bits(math.Inf(-1))))}, want: "CAST('-Infinity' AS float8)"},
		{name: "binary bool", p: Param{OID: pgtypes.Bool, Binary: true, Value: []byte{1}}, want: "TRUE"},
		{name: "binary text", p: Param{OID: pgtypes.Text, Binary: true, Value: []byte("it's")}, want: "'it''s'"},
		{name: "binary date", p: Param{OID: pgtypes.Date, Binary: true, Value: be32(-1)}, want: "CAST('1999-12-31' AS date)"},
		{name: "binary date 2001", p: Param{OID: pgtypes.Date, Binary: true, Value: be32(366)}, want: "CAST('2001-01-01' AS date)"},
		{name: "binary timestamp", p: Param{OID: pgtypes.Timestamp, Binary: true, Value: be64(86400*1e6 + 1)}, want: "CAST('2000-01-02 00:00:00.000001' AS timestamp)"},
		{name: "binary timestamp before 2000", p: Param{OID: pgtypes.Timestamp, Binary: true, Value: be64(-1)}, want: "CAST('1999-12-31 23:59:59.999999' AS timestamp)"},
		{name: "binary timestamptz", p: Param{OID: pgtypes.Timestamptz, Binary: true, Value: be64(0)}, want: "CAST('2000-01-01 00:00:00Z' AS timestamptz)"},
		{name: "binary uuid", p: Param{OID: pgtypes.UUID, Binary: true, Value: []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}},
			want: "CAST('00010203-0405-0607-0809-0a0b0c0d0e0f' AS uuid)"},
		{name: "binary jsonb", p: Param{OID: pgtypes.JSONB, Binary: true, Value: []byte("\x01{\"a\": 1}")}, want: `CAST('{"a": 1}' AS jsonb)`},
		{name: "binary int4 short", p: Param{OID: pgtypes.Int4, Binary: true, Value: []byte{1}}, err: true},
		{name: "binary of unknown type", p: Param{Binary: true, Value: []byte{0, 0, 0, 1}}, err: true},
		{name: "binary of unknown type, one byte", p: Param{Binary: true, Value: []byte{1}}, err: true},
		{name: "binary of a type not known", p: Param{OID: 600, Binary: true, Value: []byte{1}}, err: true},
		// Binary numeric, bytea and infinite dates are not decoded: the
		// statement stays unjudged for such values.
		{name: "binary numeric", p: Param{OID: pgtypes.Numeric, Binary: true, Value: []byte{0, 0}}, err: true},
		{name: "binary numeric -12.34", p: Param{OID: pgtypes.Numeric, Binary: true, Value: numericBin(0, 0x4000, 2, 12, 3400)}, err: true},
		{name: "binary bytea", p: Param{OID: pgtypes.Bytea, Binary: true, Value: []byte{0, 0xff}}, err: true},
		{name: "binary date infinity", p: Param{OID: pgtypes.Date, Binary: true, Value: be32(math.MaxInt32)}, err: true},
		{name: "type not known", p: Param{OID: 600, Value: []byte("(1,2)")}, err: true},
		{name: "NUL", p: Param{OID: pgtypes.Text, Value: []byte("a\x00b")}, err: true},
		{name: "invalid UTF-8", p: Param{OID: pgtypes.Text, Value: []byte{0xff}}, err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Literal(tc.p)
			if tc.err {
				if !errors.Is(err, ErrValue) {
					t.Fatalf("got %q, %v; want ErrValue", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
			checkOneExpression(t, got)
		})
	}
}

// checkOneExpression asserts that lit, put in place of a parameter,
// parses as one expression and nothing more.
func checkOneExpression(t testing.TB, lit string) {
	t.Helper()
	bound, ok := Substitute("SELECT $1 = x FROM t", map[int]string{1: lit})
	if !ok {
		t.Fatalf("%q: not bound", lit)
	}
	tree, err := pg.Parse(bound)
	if err != nil || len(tree.Stmts) != 1 {
		t.Fatalf("%q: %v (%d statements)", bound, err, len(tree.GetStmts()))
	}
	sel := tree.Stmts[0].Stmt.GetSelectStmt()
	if sel == nil || len(sel.TargetList) != 1 || len(sel.FromClause) != 1 || sel.WhereClause != nil {
		t.Fatalf("%q does not read as SELECT <value> = x FROM t", bound)
	}
}

// FuzzLiteral: whatever a client binds, the literal reads back as one
// expression, and a string reads back as the very string.
func FuzzLiteral(f *testing.F) {
	for _, s := range []string{"", "42", "O'Brien", `\'`, "*/ DROP", "$1", "$$", "'; --", "-1", "1e5"} {
		for _, oid := range []uint32{0, pgtypes.Text, pgtypes.Int4, pgtypes.Numeric, pgtypes.Bool, pgtypes.Date} {
			f.Add(oid, false, []byte(s))
		}
	}
	f.Add(uint32(pgtypes.Int8), true, be64(-5))
	f.Fuzz(func(t *testing.T, oid uint32, bin bool, v []byte) {
		if v == nil {
			v = []byte{} // NULL is not what this checks
		}
		lit, err := Literal(Param{OID: oid, Binary: bin, Value: v})
		if err != nil {
			return
		}
		checkOneExpression(t, lit)
		if !bin && (oid == 0 || oid == pgtypes.Text) {
			tree, err := pg.Parse("SELECT " + lit)
			if err != nil {
				t.Fatal(err)
			}
			c := tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val.GetAConst()
			if c == nil || c.GetSval().GetSval() != string(v) {
				t.Fatalf("%q read back as %v", v, c)
			}
		}
	})
}
