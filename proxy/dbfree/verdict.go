package dbfree

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/internal/pgtypes"
	"github.com/pgequiv/pgequiv/proxy/connset"
)

// column is one column of the verdict row.
type column struct {
	name string
	oid  uint32
	size int16
}

// columns are pgequiv.check's result columns, in order.
var columns = []column{
	{"label", pgtypes.Text, -1},
	// The score is for people reading psql output: numeric with three
	// decimals (0.990), as pgequiv check and the proxy's notices print it.
	{"score", pgtypes.Numeric, -1},
	{"assumptions", pgtypes.Text, -1},
	{"rules", pgtypes.Text, -1},
	{"differences", pgtypes.Text, -1},
	// counterexample: a database on which the two differ, as INSERT
	// statements followed by both results; NULL when none was found.
	{"counterexample", pgtypes.Text, -1},
}

func columnIndex(name string) int {
	for i, c := range columns {
		if c.name == name {
			return i
		}
	}
	return -1
}

func columnNames() string {
	names := make([]string, len(columns))
	for i, c := range columns {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}

// rowDescription describes cols with the result format codes of a Bind
// (none: all text; one: for all; else one per column).
func rowDescription(cols []int, formats []int16) *pgproto3.RowDescription {
	rd := &pgproto3.RowDescription{Fields: make([]pgproto3.FieldDescription, len(cols))}
	for i, ci := range cols {
		c := columns[ci]
		rd.Fields[i] = pgproto3.FieldDescription{
			Name: []byte(c.name), DataTypeOID: c.oid, DataTypeSize: c.size,
			TypeModifier: -1, Format: formatOf(formats, i),
		}
	}
	return rd
}

func formatOf(formats []int16, i int) int16 {
	switch len(formats) {
	case 0:
		return 0
	case 1:
		return formats[0]
	}
	return formats[i]
}

// dataRow encodes v's columns cols in the given formats. Text columns are
// the same in text and binary format.
func dataRow(v equivalence.Verdict, cols []int, formats []int16) *pgproto3.DataRow {
	row := &pgproto3.DataRow{Values: make([][]byte, len(cols))}
	for i, ci := range cols {
		var val []byte
		switch columns[ci].name {
		case "label":
			val = []byte(v.Label)
		case "score":
			if formatOf(formats, i) == 1 {
				val = scoreBinary(v.Score)
			} else {
				val = scoreText(v.Score)
			}
		case "assumptions":
			val = []byte(joinStrings(v.Assumptions, "; "))
		case "rules":
			val = []byte(strings.Join(v.Rules, ", "))
		case "differences":
			val = []byte(joinStrings(v.Differences, "; "))
		case "counterexample":
			if v.Counterexample != nil {
				val = []byte(v.Counterexample.Detail())
			}
		}
		row.Values[i] = val
	}
	return row
}

// scoreDecimals is how many decimals the score column has.
const scoreDecimals = 3

// scoreMillis is the score rounded to scoreDecimals, as an integer.
func scoreMillis(score float64) int64 { return int64(math.Round(score * 1000)) }

// scoreText is the score column in text format: numeric, three decimals.
func scoreText(score float64) []byte {
	if math.IsNaN(score) || math.IsInf(score, 0) {
		return []byte("NaN")
	}
	return strconv.AppendFloat(nil, float64(scoreMillis(score))/1000, 'f', scoreDecimals, 64)
}

// scoreBinary is the score column in numeric's binary format: ndigits,
// weight, sign, dscale, then base-10000 digits, most significant first,
// without leading or trailing zero digits; weight is the power of 10000 of
// the first digit.
func scoreBinary(score float64) []byte {
	const (
		signPositive = 0x0000
		signNegative = 0x4000
		signNaN      = 0xC000
	)
	if math.IsNaN(score) || math.IsInf(score, 0) {
		// No digits, weight 0, the NaN sign, no decimals.
		return []byte{0, 0, 0, 0, signNaN >> 8, signNaN & 0xff, 0, 0}
	}
	m, sign := scoreMillis(score), uint16(signPositive)
	if m < 0 {
		m, sign = -m, signNegative
	}
	var digits []uint16 // integer part, then one fractional digit
	for ip := m / 1000; ip > 0; ip /= 10000 {
		digits = append([]uint16{uint16(ip % 10000)}, digits...)
	}
	weight := len(digits) - 1
	digits = append(digits, uint16(m%1000*10)) // .990 is the digit 9900
	for len(digits) > 0 && digits[len(digits)-1] == 0 {
		digits = digits[:len(digits)-1]
	}
	if len(digits) == 0 {
		weight = 0
	}
	b := make([]byte, 0, 8+2*len(digits))
	b = binary.BigEndian.AppendUint16(b, uint16(len(digits)))
	b = binary.BigEndian.AppendUint16(b, uint16(int16(weight)))
	b = binary.BigEndian.AppendUint16(b, sign)
	b = binary.BigEndian.AppendUint16(b, scoreDecimals)
	for _, d := range digits {
		b = binary.BigEndian.AppendUint16(b, d)
	}
	return b
}

func joinStrings[T fmt.Stringer](xs []T, sep string) string {
	var b strings.Builder
	for i, x := range xs {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(x.String())
	}
	return b.String()
}

// SQLSTATEs the endpoint reports.
const (
	codeFeatureNotSupported = "0A000"
	codeInvalidParameter    = "22023"
	codeUndefinedFunction   = "42883"
	codeUndefinedColumn     = "42703"
	codeUndefinedParameter  = "42P02"
	codeProtocolViolation   = "08P01"
	codeSyntaxError         = "42601"
	codeQueryCanceled       = "57014"
	codeInvalidPassword     = "28P01"
	codeAdminShutdown       = "57P01"
	codeInvalidBinary       = "22P03"
	codeIdleSessionTimeout  = "57P05"
	codeTooManyConnections  = connset.TooManyClientsCode
	codeConfigLimitExceeded = "53400"
	codeInternalError       = "XX000"
)

// pgError is an error reported to the client as an ErrorResponse.
type pgError struct {
	code   string
	msg    string
	detail string
	hint   string
}

func (e *pgError) Error() string { return e.msg }

func errorf(code, format string, args ...any) *pgError {
	return &pgError{code: code, msg: fmt.Sprintf(format, args...)}
}

// errNotAnswerable is the answer to every statement that is neither a
// pgequiv.check call nor tagged.
func errNotAnswerable() *pgError {
	return &pgError{
		code: codeFeatureNotSupported,
		msg:  "pgequiv: database-free mode answers only pgequiv.check(...) and tagged queries",
		hint: "Run SELECT * FROM pgequiv.check('<reference>', '<candidate>'), or tag a query with /*pgequiv_ref='<reference>'*/.",
	}
}

func (e *pgError) response(severity string) *pgproto3.ErrorResponse {
	return &pgproto3.ErrorResponse{Severity: severity, SeverityUnlocalized: severity, Code: e.code,
		Message: cString(e.msg), Detail: cString(e.detail), Hint: cString(e.hint)}
}

// cString makes s safe for a C-string message field: a NUL (from a
// client's text quoted in a message) would end the field early and
// desynchronise the client.
func cString(s string) string {
	return strings.ReplaceAll(s, "\x00", `\x00`)
}
