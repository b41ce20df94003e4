package proxy

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"time"
)

// AdminConsole answers the admin console's statements.
type AdminConsole interface {
	// Describe returns the columns sql's result has (nil: none) without
	// running it: the extended protocol asks before it executes.
	Describe(sql string) ([]AdminColumn, error)
	// Exec runs one statement (without its trailing semicolon); params
	// are the text values of its $1, $2, ... from the extended protocol.
	Exec(ctx context.Context, srv *Server, s *Session, sql string, params []string) (*AdminResult, error)
}

// AdminType is a result column's PostgreSQL type (its OID).
type AdminType uint32

// The types of admin console columns.
const (
	AdminText        AdminType = 25
	AdminInt8        AdminType = 20
	AdminFloat8      AdminType = 701
	AdminTimestamptz AdminType = 1184
)

func (t AdminType) size() int16 {
	switch t {
	case AdminInt8, AdminFloat8, AdminTimestamptz:
		return 8
	}
	return -1
}

// AdminColumn is a result column.
type AdminColumn struct {
	Name string
	Type AdminType
}

// AdminResult is a statement's answer: typed rows, then a command tag.
// A row's values are string (text), integers (int8), float64 (float8),
// time.Time (timestamptz) or nil (NULL), as its columns say.
type AdminResult struct {
	Columns []AdminColumn
	Rows    [][]any
	Tag     string
}

// pgEpoch is where PostgreSQL's binary timestamps count from.
var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// encodeAdminValue is v in PostgreSQL's text or binary format for typ;
// nil is NULL.
func encodeAdminValue(v any, typ AdminType, bin bool) []byte {
	if v == nil {
		return nil
	}
	if !bin {
		return []byte(adminText(v))
	}
	var b [8]byte
	switch typ {
	case AdminInt8:
		binary.BigEndian.PutUint64(b[:], uint64(asInt64(v)))
		return b[:]
	case AdminFloat8:
		f, _ := v.(float64)
		binary.BigEndian.PutUint64(b[:], math.Float64bits(f))
		return b[:]
	case AdminTimestamptz:
		t, _ := v.(time.Time)
		binary.BigEndian.PutUint64(b[:], uint64(t.Sub(pgEpoch).Microseconds()))
		return b[:]
	}
	return []byte(adminText(v))
}

// adminText is v in PostgreSQL's text output format.
func adminText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case time.Time:
		return x.UTC().Format("2006-01-02 15:04:05.999999") + "+00"
	case int, int64, uint64, uint32:
		return strconv.FormatInt(asInt64(x), 10)
	}
	return fmt.Sprint(v)
}

func asInt64(v any) int64 {
	switch x := v.(type) {
	case int:
		return int64(x)
	case int64:
		return x
	case uint64:
		return int64(min(x, math.MaxInt64))
	case uint32:
		return int64(x)
	}
	return 0
}

// round3 rounds to three decimals, as scores and latencies are shown to
// people.
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
