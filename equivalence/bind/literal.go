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

// Type OIDs Literal writes.
const (
	oidBool        = 16
	oidBytea       = 17
	oidChar        = 18
	oidName        = 19
	oidInt8        = 20
	oidInt2        = 21
	oidInt4        = 23
	oidText        = 25
	oidOID         = 26
	oidJSON        = 114
	oidFloat4      = 700
	oidFloat8      = 701
	oidUnknown     = 705
	oidBpchar      = 1042
	oidVarchar     = 1043
	oidDate        = 1082
	oidTime        = 1083
	oidTimestamp   = 1114
	oidTimestamptz = 1184
	oidInterval    = 1186
	oidNumeric     = 1700
	oidUUID        = 2950
	oidJSONB       = 3802
)

// typeNames are the SQL names of the known types other than the string
// and numeric ones (which need no cast).
var typeNames = map[uint32]string{
	oidBytea: "bytea", oidJSON: "json", oidDate: "date", oidTime: "time", oidTimestamp: "timestamp",
	oidTimestamptz: "timestamptz", oidInterval: "interval", oidUUID: "uuid", oidJSONB: "jsonb",
	oidInt2: "int2", oidInt4: "int4", oidInt8: "int8", oidFloat4: "float4", oidFloat8: "float8",
	oidNumeric: "numeric", oidOID: "oid", oidBool: "bool",
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
		if oid == 0 || oid == oidUnknown || isStringType(oid) {
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
	case oid == 0 || oid == oidUnknown || isStringType(oid):
		return quoteLiteral(text), nil
	case oid == oidBool:
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
	case oidText, oidVarchar, oidBpchar, oidName, oidChar:
		return true
	}
	return false
}

func isNumericType(oid uint32) bool {
	switch oid {
	case oidInt2, oidInt4, oidInt8, oidFloat4, oidFloat8, oidNumeric, oidOID:
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
	case isStringType(oid) || oid == oidJSON:
		return string(v), nil
	case oid == oidJSONB:
		if len(v) < 1 || v[0] != 1 {
			return "", fmt.Errorf("%w: jsonb version", ErrValue)
		}
		return string(v[1:]), nil
	}
	switch oid {
	case oidBool:
		if err := size(1); err != nil {
			return "", err
		}
		if v[0] != 0 {
			return "t", nil
		}
		return "f", nil
	case oidInt2:
		if err := size(2); err != nil {
			return "", err
		}
		return strconv.FormatInt(int64(int16(binary.BigEndian.Uint16(v))), 10), nil
	case oidInt4:
		if err := size(4); err != nil {
			return "", err
		}
		return strconv.FormatInt(int64(int32(binary.BigEndian.Uint32(v))), 10), nil
	case oidOID:
		if err := size(4); err != nil {
			return "", err
		}
		return strconv.FormatUint(uint64(binary.BigEndian.Uint32(v)), 10), nil
	case oidInt8:
		if err := size(8); err != nil {
			return "", err
		}
		return strconv.FormatInt(int64(binary.BigEndian.Uint64(v)), 10), nil
	case oidFloat4:
		if err := size(4); err != nil {
			return "", err
		}
		return formatFloat(float64(math.Float32frombits(binary.BigEndian.Uint32(v))), 32), nil
	case oidFloat8:
		if err := size(8); err != nil {
			return "", err
		}
		return formatFloat(math.Float64frombits(binary.BigEndian.Uint64(v)), 64), nil
	case oidDate:
		if err := size(4); err != nil {
			return "", err
		}
		days := int32(binary.BigEndian.Uint32(v))
		if days == math.MaxInt32 || days == math.MinInt32 {
			return "", fmt.Errorf("%w: infinite date", ErrValue)
		}
		return pgEpoch.AddDate(0, 0, int(days)).Format("2006-01-02"), nil
	case oidTimestamp, oidTimestamptz:
		if err := size(8); err != nil {
			return "", err
		}
		us := int64(binary.BigEndian.Uint64(v))
		if us == math.MaxInt64 || us == math.MinInt64 {
			return "", fmt.Errorf("%w: infinite timestamp", ErrValue)
		}
		t := time.Unix(pgEpoch.Unix()+us/1e6, (us%1e6)*1e3).UTC()
		if oid == oidTimestamptz {
			return t.Format("2006-01-02 15:04:05.999999Z07:00"), nil
		}
		return t.Format("2006-01-02 15:04:05.999999"), nil
	case oidUUID:
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
