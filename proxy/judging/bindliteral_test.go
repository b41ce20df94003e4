package judging

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	pgquery "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/proxy/tag"
)

func be16(v int16) []byte { return binary.BigEndian.AppendUint16(nil, uint16(v)) }
func be32(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
func be64(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

func TestBindLiteral(t *testing.T) {
	for _, tc := range []struct {
		name   string
		oid    uint32
		binary bool
		null   bool
		v      []byte
		want   string
		err    bool
	}{
		{name: "untyped text", oid: 0, v: []byte("42"), want: "'42'"},
		{name: "untyped quote", oid: 0, v: []byte("O'Brien"), want: "'O''Brien'"},
		{name: "backslash stays", oid: oidText, v: []byte(`a\'b`), want: `'a\''b'`},
		{name: "comment text stays in the string", oid: oidVarchar, v: []byte("x'/* */--"), want: "'x''/* */--'"},
		{name: "int4 text", oid: oidInt4, v: []byte("-17"), want: "-17"},
		{name: "int4 text with junk", oid: oidInt4, v: []byte("1; DROP TABLE x"), want: "CAST('1; DROP TABLE x' AS int4)"},
		{name: "numeric exponent", oid: oidNumeric, v: []byte("1.5e-3"), want: "1.5e-3"},
		{name: "float NaN", oid: oidFloat8, v: []byte("NaN"), want: "CAST('NaN' AS float8)"},
		{name: "bool text", oid: oidBool, v: []byte("t"), want: "TRUE"},
		{name: "bool odd", oid: oidBool, v: []byte("maybe"), want: "CAST('maybe' AS bool)"},
		{name: "date text", oid: oidDate, v: []byte("2024-02-29"), want: "CAST('2024-02-29' AS date)"},
		{name: "NULL untyped", oid: 0, null: true, want: "NULL"},
		{name: "NULL int4", oid: oidInt4, null: true, want: "CAST(NULL AS int4)"},
		{name: "binary int2", oid: oidInt2, binary: true, v: be16(-3), want: "-3"},
		{name: "binary int4", oid: oidInt4, binary: true, v: be32(math.MinInt32), want: "-2147483648"},
		{name: "binary int8", oid: oidInt8, binary: true, v: be64(1 << 40), want: "1099511627776"},
		{name: "binary float8", oid: oidFloat8, binary: true, v: be64(int64(math.Float64bits(0.1))), want: "0.1"},
		{name: "binary float8 inf", oid: oidFloat8, binary: true, v: be64(int64(math.Float64bits(math.Inf(-1)))), want: "CAST('-Infinity' AS float8)"},
		{name: "binary bool", oid: oidBool, binary: true, v: []byte{1}, want: "TRUE"},
		{name: "binary text", oid: oidText, binary: true, v: []byte("it's"), want: "'it''s'"},
		{name: "binary date", oid: oidDate, binary: true, v: be32(-1), want: "CAST('1999-12-31' AS date)"},
		{name: "binary timestamp", oid: oidTimestamp, binary: true, v: be64(86400*1e6 + 1), want: "CAST('2000-01-02 00:00:00.000001' AS timestamp)"},
		{name: "binary timestamp before 2000", oid: oidTimestamp, binary: true, v: be64(-1), want: "CAST('1999-12-31 23:59:59.999999' AS timestamp)"},
		{name: "binary uuid", oid: oidUUID, binary: true, v: []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
			want: "CAST('00010203-0405-0607-0809-0a0b0c0d0e0f' AS uuid)"},
		{name: "binary int4 short", oid: oidInt4, binary: true, v: []byte{1}, err: true},
		{name: "binary of unknown type", oid: 0, binary: true, v: []byte{0, 0, 0, 1}, err: true},
		{name: "binary numeric", oid: oidNumeric, binary: true, v: []byte{0, 0}, err: true},
		{name: "type not known", oid: 600, v: []byte("(1,2)"), err: true},
		{name: "NUL", oid: oidText, v: []byte("a\x00b"), err: true},
		{name: "invalid UTF-8", oid: oidText, v: []byte{0xff}, err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := bindLiteral(tc.oid, tc.binary, tc.null, tc.v)
			if tc.err {
				if !errors.Is(err, ErrBindValue) {
					t.Fatalf("got %q, %v; want ErrBindValue", got, err)
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
	bound, ok := tag.BindParams("SELECT $1 = x FROM t", map[int]string{1: lit})
	if !ok {
		t.Fatalf("%q: not bound", lit)
	}
	tree, err := pgquery.Parse(bound)
	if err != nil || len(tree.Stmts) != 1 {
		t.Fatalf("%q: %v (%d statements)", bound, err, len(tree.GetStmts()))
	}
	sel := tree.Stmts[0].Stmt.GetSelectStmt()
	if sel == nil || len(sel.TargetList) != 1 || len(sel.FromClause) != 1 || sel.WhereClause != nil {
		t.Fatalf("%q does not read as SELECT <value> = x FROM t", bound)
	}
}

// FuzzBindLiteral: whatever a client binds, the literal reads back as one
// expression, and a string reads back as the very string.
func FuzzBindLiteral(f *testing.F) {
	for _, s := range []string{"", "42", "O'Brien", `\'`, "*/ DROP", "$1", "$$", "'; --", "-1", "1e5"} {
		for _, oid := range []uint32{0, oidText, oidInt4, oidNumeric, oidBool, oidDate} {
			f.Add(oid, false, []byte(s))
		}
	}
	f.Add(uint32(oidInt8), true, be64(-5))
	f.Fuzz(func(t *testing.T, oid uint32, bin bool, v []byte) {
		lit, err := bindLiteral(oid, bin, false, v)
		if err != nil {
			return
		}
		checkOneExpression(t, lit)
		if !bin && (oid == 0 || oid == oidText) {
			tree, err := pgquery.Parse("SELECT " + lit)
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
