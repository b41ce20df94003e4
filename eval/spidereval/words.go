package spidereval

import "strings"

// wordToken is an unquoted word (upper-cased), a comma or a semicolon of
// a query, with its byte span and parenthesis depth.
type wordToken struct {
	word       string
	start, end int
	depth      int
}

// wordTokens splits a SQLite or PostgreSQL query into wordTokens,
// skipping strings, quoted names ("", “, []) and comments: what the
// Spider helpers (hardness, the test-suite preset) read of a query
// without planning it.
func wordTokens(sql string) []wordToken {
	var toks []wordToken
	depth := 0
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			i = skipQuote(sql, i, c)
		case c == '[':
			if j := strings.IndexByte(sql[i:], ']'); j >= 0 {
				i += j + 1
			} else {
				i = len(sql)
			}
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			if j := strings.IndexByte(sql[i:], '\n'); j >= 0 {
				i += j
			} else {
				i = len(sql)
			}
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			if j := strings.Index(sql[i+2:], "*/"); j >= 0 {
				i += j + 4
			} else {
				i = len(sql)
			}
		case c == '(':
			depth++
			i++
		case c == ')':
			depth--
			i++
		case c == ',' || c == ';':
			toks = append(toks, wordToken{word: string(c), start: i, end: i + 1, depth: depth})
			i++
		case isWord(c):
			j := i
			for j < len(sql) && isWord(sql[j]) {
				j++
			}
			toks = append(toks, wordToken{word: strings.ToUpper(sql[i:j]), start: i, end: j, depth: depth})
			i = j
		default:
			i++
		}
	}
	return toks
}

// skipQuote returns the index past the quoted run starting at i (a
// doubled quote stays inside it).
func skipQuote(s string, i int, q byte) int {
	for j := i + 1; j < len(s); j++ {
		if s[j] == q {
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(s)
}

func isWord(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}
