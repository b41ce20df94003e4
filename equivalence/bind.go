package equivalence

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// A statement with parameters is judged for every value of them (see
// Param). Once a client binds values (the extended protocol's Bind), the
// statement that runs is the one with those values: BindParams writes it,
// each $n replaced by a literal of its bound value, so that a pair whose
// parameterized form was not decided can be judged again as it executes.

// BoundParam is one parameter value as a Bind message carries it.
type BoundParam struct {
	// OID is the parameter's type, from Parse or the server's
	// ParameterDescription; 0 leaves the type to be inferred from the
	// statement, as the server does for an unspecified type.
	OID uint32
	// Binary is true for the binary format code (1), false for text (0).
	Binary bool
	// Value is the value's bytes; nil is NULL.
	Value []byte
}

// ErrBindValue reports a bound value BindParams cannot write as a
// literal: a binary value of a type it does not decode, a value that does
// not decode, or text with a NUL byte. The statement is then not judged
// with its values.
var ErrBindValue = errors.New("bind: value cannot be written as a literal")

// BindParams returns sql with each parameter $n (n ≤ len(params)) replaced
// by the literal of params[n-1]: an untyped quoted literal for OID 0
// (resolved as the server resolves an unspecified parameter), otherwise
// a typed one, ('5'::int4), parenthesized so that it binds as the
// placeholder did. Placeholders are found by PostgreSQL's own scanner, so
// "$1" inside a string, a comment or a dollar-quoted body stays. Strings
// are written with standard_conforming_strings on (quotes doubled,
// backslashes literal), as the judge's parser reads them.
func BindParams(sql string, params []BoundParam) (string, error) {
	lits := make([]string, len(params))
	for i, p := range params {
		l, err := ParamLiteral(p)
		if err != nil {
			return "", fmt.Errorf("bind $%d: %w", i+1, err)
		}
		lits[i] = l
	}
	res, err := pg.Scan(sql)
	if err != nil {
		return "", fmt.Errorf("bind: scan: %w", err)
	}
	var b strings.Builder
	last := 0
	for _, t := range res.Tokens {
		if t.Token != pg.Token_PARAM {
			continue
		}
		start, end := int(t.Start), int(t.End)
		if start < last || end > len(sql) || start+1 >= end {
			return "", fmt.Errorf("bind: placeholder at %d: %w", start, ErrBindValue)
		}
		n, err := strconv.Atoi(sql[start+1 : end])
		if err != nil || n < 1 || n > len(lits) {
			return "", fmt.Errorf("bind: %s has no bound value: %w", sql[start:end], ErrBindValue)
		}
		b.WriteString(sql[last:start])
		b.WriteString(lits[n-1])
		last = end
	}
	b.WriteString(sql[last:])
	return b.String(), nil
}

// oidTypes names the types ParamLiteral writes, by OID.
var oidTypes = map[uint32]string{
	16: "bool", 17: "bytea", 18: "char", 19: "name", 20: "int8", 21: "int2", 23: "int4", 25: "text",
	26: "oid", 114: "json", 700: "float4", 701: "float8", 1042: "bpchar", 1043: "varchar",
	1082: "date", 1083: "time", 1114: "timestamp", 1184: "timestamptz", 1186: "interval",
	1700: "numeric", 2950: "uuid", 3802: "jsonb",
}

// ParamLiteral writes one bound value as a SQL literal (see BindParams).
func ParamLiteral(p BoundParam) (string, error) {
	name, known := oidTypes[p.OID]
	if p.OID != 0 && p.OID != 705 && !known {
		if p.Binary || p.Value != nil {
			return "", fmt.Errorf("type OID %d: %w", p.OID, ErrBindValue)
		}
	}
	if p.Value == nil {
		if !known {
			return "NULL", nil
		}
		return "(NULL::" + name + ")", nil
	}
	text := string(p.Value)
	if p.Binary {
		if !known {
			return "", fmt.Errorf("binary value of unspecified type: %w", ErrBindValue)
		}
		var err error
		if text, err = decodeBinary(name, p.Value); err != nil {
			return "", err
		}
	}
	if strings.IndexByte(text, 0) >= 0 || !utf8.ValidString(text) {
		return "", fmt.Errorf("value is not valid text: %w", ErrBindValue)
	}
	q := "'" + strings.ReplaceAll(text, "'", "''") + "'"
	if !known {
		return q, nil
	}
	return "(" + q + "::" + name + ")", nil
}

// pgEpoch is PostgreSQL's binary date and timestamp origin.
var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// decodeBinary reads a binary-format value of type name as its text.
func decodeBinary(name string, v []byte) (string, error) {
	bad := fmt.Errorf("binary %s of %d bytes: %w", name, len(v), ErrBindValue)
	be := binary.BigEndian
	switch name {
	case "bool":
		if len(v) != 1 {
			return "", bad
		}
		return strconv.FormatBool(v[0] != 0), nil
	case "int2":
		if len(v) != 2 {
			return "", bad
		}
		return strconv.Itoa(int(int16(be.Uint16(v)))), nil
	case "int4":
		if len(v) != 4 {
			return "", bad
		}
		return strconv.Itoa(int(int32(be.Uint32(v)))), nil
	case "int8":
		if len(v) != 8 {
			return "", bad
		}
		return strconv.FormatInt(int64(be.Uint64(v)), 10), nil
	case "oid":
		if len(v) != 4 {
			return "", bad
		}
		return strconv.FormatUint(uint64(be.Uint32(v)), 10), nil
	case "float4":
		if len(v) != 4 {
			return "", bad
		}
		return floatText(float64(math.Float32frombits(be.Uint32(v))), 32), nil
	case "float8":
		if len(v) != 8 {
			return "", bad
		}
		return floatText(math.Float64frombits(be.Uint64(v)), 64), nil
	case "text", "varchar", "bpchar", "name", "char", "json":
		return string(v), nil
	case "jsonb":
		if len(v) < 1 || v[0] != 1 {
			return "", bad
		}
		return string(v[1:]), nil
	case "bytea":
		return `\x` + hex.EncodeToString(v), nil
	case "uuid":
		if len(v) != 16 {
			return "", bad
		}
		h := hex.EncodeToString(v)
		return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], nil
	case "date":
		if len(v) != 4 {
			return "", bad
		}
		switch d := int32(be.Uint32(v)); d {
		case math.MaxInt32:
			return "infinity", nil
		case math.MinInt32:
			return "-infinity", nil
		default:
			return pgEpoch.AddDate(0, 0, int(d)).Format("2006-01-02"), nil
		}
	case "timestamp", "timestamptz":
		if len(v) != 8 {
			return "", bad
		}
		switch us := int64(be.Uint64(v)); us {
		case math.MaxInt64:
			return "infinity", nil
		case math.MinInt64:
			return "-infinity", nil
		default:
			s := pgEpoch.Add(time.Duration(us) * time.Microsecond).Format("2006-01-02 15:04:05.999999")
			if name == "timestamptz" {
				s += "+00"
			}
			return s, nil
		}
	case "numeric":
		return numericText(v)
	}
	return "", bad
}

// floatText writes a float as PostgreSQL reads it back exactly.
func floatText(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}

// numericText decodes numeric's binary form: ndigits, weight, sign and
// dscale (int16 each), then ndigits base-10000 digits.
func numericText(v []byte) (string, error) {
	bad := fmt.Errorf("binary numeric of %d bytes: %w", len(v), ErrBindValue)
	if len(v) < 8 {
		return "", bad
	}
	be := binary.BigEndian
	n := int(be.Uint16(v))
	weight := int(int16(be.Uint16(v[2:])))
	sign := be.Uint16(v[4:])
	dscale := int(be.Uint16(v[6:]))
	if len(v) != 8+2*n || dscale > 16383 {
		return "", bad
	}
	switch sign {
	case 0xC000:
		return "NaN", nil
	case 0xD000:
		return "Infinity", nil
	case 0xF000:
		return "-Infinity", nil
	case 0, 0x4000:
	default:
		return "", bad
	}
	// The digits as one integer, then scaled by 10000^(weight-n+1).
	digits := new(big.Int)
	tenK := big.NewInt(10000)
	for i := 0; i < n; i++ {
		d := int64(be.Uint16(v[8+2*i:]))
		if d >= 10000 {
			return "", bad
		}
		digits.Mul(digits, tenK).Add(digits, big.NewInt(d))
	}
	r := new(big.Rat).SetInt(digits)
	if exp := weight - n + 1; exp != 0 {
		p := new(big.Int).Exp(tenK, big.NewInt(int64(abs(exp))), nil)
		if exp > 0 {
			r.Mul(r, new(big.Rat).SetInt(p))
		} else {
			r.Quo(r, new(big.Rat).SetInt(p))
		}
	}
	if sign == 0x4000 {
		r.Neg(r)
	}
	return r.FloatString(dscale), nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
