package bind

import (
	"reflect"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/internal/pgtypes"
)

func TestSubstitute(t *testing.T) {
	for _, tc := range []struct {
		sql      string
		vals     map[int]string
		want     string
		verbatim string // SubstituteVerbatim's, where it differs
	}{
		{sql: "SELECT a FROM t WHERE b = $1 AND c = $2", vals: map[int]string{1: "5", 2: "'x'"}, want: "SELECT a FROM t WHERE b = 5 AND c = 'x'"},
		{sql: "SELECT a FROM t WHERE b = $1 - $2 AND d = '$1'", vals: map[int]string{2: "-3"},
			want: "SELECT a FROM t WHERE b = $1 - (-3) AND d = '$1'", verbatim: "SELECT a FROM t WHERE b = $1 - -3 AND d = '$1'"},
		{sql: "SELECT 1", want: "SELECT 1"},
		// A placeholder in a string, a comment, a dollar quote or an
		// identifier is not one.
		{sql: "SELECT '$1', $1 /* $1 */, $$ $1 $$, \"$1\" -- $1\n", vals: map[int]string{1: "'x'"},
			want: "SELECT '$1', 'x' /* $1 */, $$ $1 $$, \"$1\" -- $1\n"},
		{sql: "SELECT $2, $1, $2", vals: map[int]string{1: "'a'", 2: "'b'"}, want: "SELECT 'b', 'a', 'b'"},
		{sql: "SELECT $2", vals: map[int]string{1: "'a'"}, want: "SELECT $2"}, // no value: stays
	} {
		if got, ok := Substitute(tc.sql, tc.vals); !ok || got != tc.want {
			t.Errorf("Substitute(%q) = %q, %v; want %q", tc.sql, got, ok, tc.want)
		}
		want := tc.verbatim
		if want == "" {
			want = tc.want
		}
		if got, ok := SubstituteVerbatim(tc.sql, tc.vals); !ok || got != want {
			t.Errorf("SubstituteVerbatim(%q) = %q, %v; want %q", tc.sql, got, ok, want)
		}
	}
}

// bindAll writes every value of ps into sql, as the proxy binds a
// statement's own parameters.
func bindAll(sql string, ps []Param) (string, error) {
	vals := make(map[int]string, len(ps))
	for i, p := range ps {
		lit, err := Literal(p)
		if err != nil {
			return "", err
		}
		vals[i+1] = lit
	}
	out, _ := Substitute(sql, vals)
	return out, nil
}

func TestBindValues(t *testing.T) {
	for _, tc := range []struct {
		sql    string
		params []Param
		want   string
	}{
		{"SELECT * FROM dogs WHERE age > $1 AND name = $2", []Param{{OID: pgtypes.Int4, Value: []byte("5")}, txt("Rex")},
			"SELECT * FROM dogs WHERE age > 5 AND name = 'Rex'"},
		{"SELECT -$1", []Param{{OID: pgtypes.Int4, Value: []byte("-5")}}, "SELECT -(-5)"},
		{"SELECT $1", []Param{{OID: pgtypes.Text, Value: []byte("'); DROP TABLE dogs; --")}}, "SELECT '''); DROP TABLE dogs; --'"},
	} {
		if got, err := bindAll(tc.sql, tc.params); err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.sql, got, err, tc.want)
		}
	}
}

func TestFromWire(t *testing.T) {
	vals := [][]byte{[]byte("1"), nil, []byte("x")}
	for _, tc := range []struct {
		name    string
		oids    []uint32
		formats []int16
		want    []Param
	}{
		{"no types, no codes", nil, nil, []Param{{Value: vals[0]}, {}, {Value: vals[2]}}},
		{"one code for all", []uint32{pgtypes.Int4}, []int16{1}, []Param{{OID: pgtypes.Int4, Binary: true, Value: vals[0]}, {Binary: true}, {Binary: true, Value: vals[2]}}},
		{"a code each", []uint32{pgtypes.Int4, pgtypes.Text, pgtypes.Text}, []int16{0, 1}, []Param{{OID: pgtypes.Int4, Value: vals[0]}, {OID: pgtypes.Text, Binary: true}, {OID: pgtypes.Text, Value: vals[2]}}},
	} {
		if got := FromWire(vals, tc.oids, tc.formats); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v; want %+v", tc.name, got, tc.want)
		}
	}
}

// FuzzBind: whatever the value, the bound statement holds no $1 and
// parses as one statement where the original did, so a value never
// changes the statement's shape.
func FuzzBind(f *testing.F) {
	f.Add("SELECT * FROM t WHERE a = $1", uint32(25), false, []byte("x'; DROP TABLE t; --"))
	f.Add("SELECT $1 || 'a'", uint32(0), false, []byte(`\'`))
	f.Add("SELECT $1", uint32(1700), true, numericBin(3, 0, 2, 1, 2))
	f.Add("SELECT $1 FROM t WHERE $1 > 0", uint32(23), true, be32(7))
	f.Add("SELECT $$ $1 $$, $1", uint32(1082), true, be32(1))
	f.Add("SELECT - $1", uint32(23), false, []byte("-1"))
	f.Fuzz(func(t *testing.T, sql string, oid uint32, bin bool, val []byte) {
		out, err := bindAll(sql, []Param{{OID: oid, Binary: bin, Value: val}})
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
				if tk.Token == pg.Token_PARAM && out[tk.Start:tk.End] == "$1" {
					t.Fatalf("bound %q into %q: %q still has $1", val, sql, out)
				}
			}
		}
	})
}
