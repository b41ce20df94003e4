package bind

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pgequiv/pgequiv/internal/pgtypes"
)

// A bound value is written as PostgreSQL would read the parameter:
//
//   - type unknown (OID 0, text format): an untyped string literal
//     '…', which PostgreSQL resolves from context exactly as it resolves
//     an unknown-typed parameter;
//   - numeric types: the number itself, checked against the grammar of a
//     numeric constant (anything else is cast from a string);
//   - bool: TRUE or FALSE;
//   - string types: '…';
//   - other known types: CAST('…' AS type);
//   - NULL: NULL, or CAST(NULL AS type) when the type is known.
//
// String literals double their quotes and are read with
// standard_conforming_strings on (the judge's parser), so a backslash is
// an ordinary character. A value that cannot be written (a binary value
// of a type not decoded here, a NUL, invalid UTF-8) is an error: the
// statement stays unjudged for those values.

// typeNames are the SQL names of the known types other than the string
// and numeric ones (which need no cast).
var typeNames = map[uint32]string{
	pgtypes.Bytea: "bytea", pgtypes.JSON: "json", pgtypes.Date: "date", pgtypes.Time: "time", pgtypes.Timestamp: "timestamp",
	pgtypes.Timestamptz: "timestamptz", pgtypes.Interval: "interval", pgtypes.UUID: "uuid", pgtypes.JSONB: "jsonb",
	pgtypes.Int2: "int2", pgtypes.Int4: "int4", pgtypes.Int8: "int8", pgtypes.Float4: "float4", pgtypes.Float8: "float8",
	pgtypes.Numeric: "numeric", pgtypes.OID: "oid", pgtypes.Bool: "bool",
}

// ErrValue marks a bound value Literal cannot write.
var ErrValue = errors.New("bound value not renderable")

// pgEpoch is where PostgreSQL's binary dates and timestamps count from.
var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// numericConst is PostgreSQL's grammar for an integer or decimal
// constant (optionally negative), with an exponent.
var numericConst = regexp.MustCompile(`^-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$`)

// Literal writes one bound value as a SQL literal.
func Literal(p Param) (string, error) {
	oid, v := p.OID, p.Value
	if v == nil {
		if name, ok := typeNames[oid]; ok {
			return "CAST(NULL AS " + name + ")", nil
		}
		if oid == 0 || oid == pgtypes.Unknown || isStringType(oid) {
			return "NULL", nil
		}
		return "", fmt.Errorf("%w: NULL of type OID %d", ErrValue, oid)
	}
	text := string(v)
	if p.Binary {
		var err error
		if text, err = decodeBinary(oid, v); err != nil {
			return "", err
		}
	}
	if strings.IndexByte(text, 0) >= 0 || !utf8.ValidString(text) {
		return "", fmt.Errorf("%w: not valid text", ErrValue)
	}
	switch {
	case oid == 0 || oid == pgtypes.Unknown || isStringType(oid):
		return quoteLiteral(text), nil
	case oid == pgtypes.Bool:
		switch strings.ToLower(strings.TrimSpace(text)) {
		case "t", "true", "y", "yes", "on", "1":
			return "TRUE", nil
		case "f", "false", "n", "no", "off", "0":
			return "FALSE", nil
		}
	case isNumericType(oid):
		if s := strings.TrimSpace(text); numericConst.MatchString(s) {
			return s, nil
		}
	}
	name, ok := typeNames[oid]
	if !ok {
		return "", fmt.Errorf("%w: type OID %d", ErrValue, oid)
	}
	return "CAST(" + quoteLiteral(text) + " AS " + name + ")", nil
}

func isStringType(oid uint32) bool {
	switch oid {
	case pgtypes.Text, pgtypes.Varchar, pgtypes.Bpchar, pgtypes.Name, pgtypes.Char:
		return true
	}
	return false
}

func isNumericType(oid uint32) bool {
	switch oid {
	case pgtypes.Int2, pgtypes.Int4, pgtypes.Int8, pgtypes.Float4, pgtypes.Float8, pgtypes.Numeric, pgtypes.OID:
		return true
	}
	return false
}

// quoteLiteral writes s as a standard string literal.
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// decodeBinary turns a binary-format value into PostgreSQL's text form.
func decodeBinary(oid uint32, v []byte) (string, error) {
	size := func(n int) error {
		if len(v) != n {
			return fmt.Errorf("%w: binary type OID %d of %d bytes", ErrValue, oid, len(v))
		}
		return nil
	}
	switch {
	case isStringType(oid) || oid == pgtypes.JSON:
		return string(v), nil
	case oid == pgtypes.JSONB:
		if len(v) < 1 || v[0] != 1 {
			return "", fmt.Errorf("%w: jsonb version", ErrValue)
		}
		return string(v[1:]), nil
	}
	switch oid {
	case pgtypes.Bool:
		if err := size(1); err != nil {
			return "", err
		}
		if v[0] != 0 {
			return "t", nil
		}
		return "f", nil
	case pgtypes.Int2:
		if err := size(2); err != nil {
			return "", err
		}
		return strconv.FormatInt(int64(int16(binary.BigEndian.Uint16(v))), 10), nil
	case pgtypes.Int4:
		if err := size(4); err != nil {
			return "", err
		}
		return strconv.FormatInt(int64(int32(binary.BigEndian.Uint32(v))), 10), nil
	case pgtypes.OID:
		if err := size(4); err != nil {
			return "", err
		}
		return strconv.FormatUint(uint64(binary.BigEndian.Uint32(v)), 10), nil
	case pgtypes.Int8:
		if err := size(8); err != nil {
			return "", err
		}
		return strconv.FormatInt(int64(binary.BigEndian.Uint64(v)), 10), nil
	case pgtypes.Float4:
		if err := size(4); err != nil {
			return "", err
		}
		return formatFloat(float64(math.Float32frombits(binary.BigEndian.Uint32(v))), 32), nil
	case pgtypes.Float8:
		if err := size(8); err != nil {
			return "", err
		}
		return formatFloat(math.Float64frombits(binary.BigEndian.Uint64(v)), 64), nil
	case pgtypes.Date:
		if err := size(4); err != nil {
			return "", err
		}
		days := int32(binary.BigEndian.Uint32(v))
		if days == math.MaxInt32 || days == math.MinInt32 {
			return "", fmt.Errorf("%w: infinite date", ErrValue)
		}
		return pgEpoch.AddDate(0, 0, int(days)).Format("2006-01-02"), nil
	case pgtypes.Timestamp, pgtypes.Timestamptz:
		if err := size(8); err != nil {
			return "", err
		}
		us := int64(binary.BigEndian.Uint64(v))
		if us == math.MaxInt64 || us == math.MinInt64 {
			return "", fmt.Errorf("%w: infinite timestamp", ErrValue)
		}
		t := time.Unix(pgEpoch.Unix()+us/1e6, (us%1e6)*1e3).UTC()
		if oid == pgtypes.Timestamptz {
			return t.Format("2006-01-02 15:04:05.999999Z07:00"), nil
		}
		return t.Format("2006-01-02 15:04:05.999999"), nil
	case pgtypes.UUID:
		if err := size(16); err != nil {
			return "", err
		}
		return fmt.Sprintf("%x-%x-%x-%x-%x", v[0:4], v[4:6], v[6:8], v[8:10], v[10:16]), nil
	}
	return "", fmt.Errorf("%w: binary value of type OID %d", ErrValue, oid)
}

// formatFloat writes f so that it reads back as the same float: the
// special values as PostgreSQL spells them, which Literal then casts.
func formatFloat(f float64, bits int) string {
	if s, ok := pgtypes.SpecialFloat(f); ok {
		return s
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}
