package refute

import (
	"strings"

	"github.com/pgequiv/pgequiv/planner/exec"
)

// Several LIKE patterns on one column (title LIKE 'Re: %' AND title LIKE
// '%[draft]%' AND title LIKE '%?') are met together by no single
// pattern's neighbours: a random search almost never builds a string
// matching them all, so the reference returns nothing and no difference
// shows. The first constraint-directed step builds those strings: the
// patterns' fixed parts laid end to end (the longest prefix, every inner
// part, the longest suffix), which matches every pattern whose prefix
// and suffix agree with the others', and the same leaving each pattern
// out in turn, so that one pattern fails while the others hold.

// maxLikeCombo bounds the patterns combined per column: the strings
// built are 1 + n.
const maxLikeCombo = 6

// likeParts splits a LIKE pattern (backslash escapes) into its fixed
// text before the first %, the parts between %s, and the text after the
// last %; _ becomes 'a'. whole is set when the pattern has no %.
func likeParts(p string) (prefix string, inner []string, suffix string, whole bool) {
	var parts []string
	var b strings.Builder
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		switch rs[i] {
		case '\\':
			if i+1 < len(rs) {
				i++
				b.WriteRune(rs[i])
			}
		case '%':
			parts = append(parts, b.String())
			b.Reset()
		case '_':
			b.WriteByte('a')
		default:
			b.WriteRune(rs[i])
		}
	}
	parts = append(parts, b.String())
	if len(parts) == 1 {
		return parts[0], nil, "", true
	}
	return parts[0], parts[1 : len(parts)-1], parts[len(parts)-1], false
}

// combineLikes returns strings that match every pattern of ps (and,
// for two or more, every pattern but one): nil when the patterns'
// prefixes or suffixes disagree, or one has no %.
func combineLikes(ps []string) []string {
	if len(ps) < 2 || len(ps) > maxLikeCombo {
		return nil
	}
	build := func(skip int) (string, bool) {
		var prefix, suffix string
		var inner []string
		for i, p := range ps {
			if i == skip {
				continue
			}
			pre, in, suf, whole := likeParts(p)
			if whole {
				return "", false
			}
			switch {
			case strings.HasPrefix(pre, prefix):
				prefix = pre
			case !strings.HasPrefix(prefix, pre):
				return "", false
			}
			switch {
			case strings.HasSuffix(suf, suffix):
				suffix = suf
			case !strings.HasSuffix(suffix, suf):
				return "", false
			}
			inner = append(inner, in...)
		}
		return prefix + strings.Join(inner, "") + suffix, true
	}
	var out []string
	if s, ok := build(-1); ok {
		out = append(out, s)
	}
	if len(ps) > 2 {
		for i := range ps {
			if s, ok := build(i); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// addLikeCombos adds, for each column compared with several LIKE
// patterns, the strings that meet them together (see combineLikes) to
// its exact literals and pools.
func (l *literals) addLikeCombos() {
	for k, ps := range l.likes {
		for _, s := range combineLikes(ps) {
			v := exec.Text(s)
			l.exact[k] = append(l.exact[k], v)
			l.compared[k] = append(l.compared[k], v)
			l.byCol[k] = append(l.byCol[k], v)
		}
	}
}
