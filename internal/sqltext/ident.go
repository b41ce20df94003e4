package sqltext

import "strings"

// QuoteIdent writes s as a quoted identifier, "..." with each " doubled,
// which reads back as s whatever it holds.
func QuoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// UnquoteIdent reads a quoted identifier "..." (U&"..." is left as
// written: its escapes are not decoded, and no built-in name is spelled
// so).
func UnquoteIdent(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	return s
}

// FoldIdent folds an unquoted identifier as PostgreSQL does under UTF8:
// ASCII letters only.
func FoldIdent(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
