package proxy

import (
	"bytes"

	pgq "github.com/pganalyze/pg_query_go/v5"
)

func (j *Judging) redact(set *JudgeSettings, s string) string {
	return j.redactor(set)(s)
}

func (j *Judging) redactSQL(set *JudgeSettings, sql string) string {
	return j.redactor(set)(sql)
}

// redactor is what the settings make of a SQL text before it is logged or
// remembered: kept with log.literals, else its literals hidden.
func (j *Judging) redactor(set *JudgeSettings) func(string) string {
	if set.LogLiterals {
		return keepText
	}
	return redactLiterals
}

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
	s := skipBlanks(sql)
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
	s := skipBlanks(sql)
	return len(s) >= len(kw) && bytes.EqualFold(s[:len(kw)], []byte(kw)) && (len(s) == len(kw) || !isIdentByte(s[len(kw)]))
}

func skipBlanks(s []byte) []byte {
	for {
		s = bytes.TrimLeft(s, " \t\r\n\f")
		switch {
		case bytes.HasPrefix(s, []byte("--")):
			i := bytes.IndexByte(s, '\n')
			if i < 0 {
				return nil
			}
			s = s[i+1:]
		case bytes.HasPrefix(s, []byte("/*")):
			i := bytes.Index(s, []byte("*/"))
			if i < 0 {
				return nil
			}
			s = s[i+2:]
		default:
			return s
		}
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// containsFold reports whether s contains the lower-case ASCII word w,
// ignoring ASCII case, without allocating. It looks for w's first byte,
// in either case, with bytes.IndexByte (vectorized): every statement on
// a judging connection goes through it, and a byte-by-byte loop took
// 30 ms over a 20 MB statement.
func containsFold(s []byte, w string) bool {
	if len(w) == 0 {
		return true
	}
	first := [2]byte{w[0], w[0]}
	if c := w[0]; c >= 'a' && c <= 'z' {
		first[1] = c - 'a' + 'A'
	}
	for k, c := range first {
		if k == 1 && c == first[0] {
			break
		}
		for i := 0; i+len(w) <= len(s); i++ {
			n := bytes.IndexByte(s[i:len(s)-len(w)+1], c)
			if n < 0 {
				break
			}
			i += n
			if hasPrefixFold(s[i:], w) {
				return true
			}
		}
	}
	return false
}

// hasPrefixFold reports whether s starts with the lower-case ASCII word
// w, ignoring ASCII case.
func hasPrefixFold(s []byte, w string) bool {
	if len(s) < len(w) {
		return false
	}
	for j := 0; j < len(w); j++ {
		c := s[j]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[j] {
			return false
		}
	}
	return true
}
