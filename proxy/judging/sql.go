package judging

import (
	"bytes"

	pgq "github.com/pganalyze/pg_query_go/v5"
	"github.com/pgequiv/pgequiv/internal/sqltext"
)

func queryFingerprint(sql string) string {
	fp, err := pgq.Fingerprint(sql)
	if err != nil {
		return ""
	}
	return fp
}

// isDDL reports whether sql starts (after blanks and comments) with
// CREATE, ALTER or DROP: statements that can change the schema.
func isDDL(sql []byte) bool {
	for _, kw := range [...]string{"create", "alter", "drop"} {
		if startsWithWord(sql, kw) {
			return true
		}
	}
	return false
}

// isQuery reports whether sql starts with a keyword of a query or data
// change: SELECT, WITH, VALUES, TABLE, INSERT, UPDATE, DELETE, MERGE or a
// parenthesis.
func isQuery(sql []byte) bool {
	s := sqltext.SkipBlanks(sql)
	if len(s) > 0 && s[0] == '(' {
		return true
	}
	for _, kw := range [...]string{"select", "with", "values", "table", "insert", "update", "delete", "merge"} {
		if startsWithWord(s, kw) {
			return true
		}
	}
	return false
}

// startsWithWord reports whether sql starts, after blanks and comments,
// with the keyword kw (lower case), ignoring case.
func startsWithWord(sql []byte, kw string) bool {
	s := sqltext.SkipBlanks(sql)
	return len(s) >= len(kw) && bytes.EqualFold(s[:len(kw)], []byte(kw)) && (len(s) == len(kw) || !isIdentByte(s[len(kw)]))
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
