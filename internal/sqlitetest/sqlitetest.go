// Package sqlitetest holds what the tests that compare pgequiv with a
// real SQLite (through database/sql; the tests register the driver)
// share: the shared schemas adapted to SQLite, and result values written
// so that equal values compare equal.
package sqlitetest

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// DDL adapts a shared schema to SQLite: it drops the statements SQLite
// refuses (the schemas describe its internal sqlite_sequence table) and
// renames the column type timestamp to timestamp_, which has the same
// (NUMERIC) affinity but which the driver does not turn into time.Time
// values.
func DDL(ddl string) string {
	ddl = timestampRE.ReplaceAllString(ddl, "${1}timestamp_")
	var keep []string
	for _, stmt := range strings.Split(ddl, ";") {
		if !strings.Contains(strings.ToLower(stmt), "sqlite_") {
			keep = append(keep, stmt)
		}
	}
	return strings.Join(keep, ";")
}

var timestampRE = regexp.MustCompile(`(?im)^(\s*"?[\w ]+"?\s+)timestamp\b`)

// Canon writes a value so that equal values compare equal: numbers by
// value (an INTEGER and a whole REAL agree; other REALs to 12 significant
// digits, as summation order may differ), text distinct from numbers.
func Canon(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return "n:" + strconv.FormatInt(v, 10)
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return "n:" + strconv.FormatInt(int64(v), 10)
		}
		return "n:" + strconv.FormatFloat(v, 'g', 12, 64)
	case string:
		return "s:" + v
	case []byte:
		return "s:" + string(v)
	case bool:
		if v {
			return "n:1"
		}
		return "n:0"
	}
	return fmt.Sprintf("?%T:%v", v, v)
}

// Query runs q (within 10 s) and returns its rows, each value written by
// Canon.
func Query(ctx context.Context, db *sql.DB, q string) ([][]string, error) {
	return QueryArgs(ctx, db, q)
}

// QueryArgs is Query with arguments bound to q's parameters.
func QueryArgs(ctx context.Context, db *sql.DB, q string, args ...any) ([][]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			row[i] = Canon(v)
		}
		out = append(out, row)
	}
	return out, rows.Err()
}
