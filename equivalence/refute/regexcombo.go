package refute

import (
	"slices"
	"strings"

	"github.com/pgequiv/pgequiv/planner/exec"
)

// A column matched by a regular expression and by other patterns (a
// second regular expression, LIKE) needs a string that passes them
// together: "a@" passes ~ '^[a-z]+@' and "x.org" LIKE '%.org', and
// only "a@.org" passes both. The strings built here are the samples of
// each regular expression laid end to end (in both orders), between the
// longest fixed prefix and suffix of the column's LIKE patterns and
// followed by their inner parts. They are seeds, not claims: the
// executor decides what they match.

// maxRegexCombo bounds the patterns combined per column.
const maxRegexCombo = 6

func (l *literals) addRegexCombos() {
	for k, rs := range l.regexes {
		ps := l.likes[k]
		if len(rs)+len(ps) < 2 || len(rs)+len(ps) > maxRegexCombo {
			continue
		}
		var prefix, suffix string
		var inner []string
		for _, p := range ps {
			pre, in, suf, whole := likeParts(p)
			if whole {
				continue
			}
			if len(pre) > len(prefix) {
				prefix = pre
			}
			if len(suf) > len(suffix) {
				suffix = suf
			}
			inner = append(inner, in...)
		}
		rev := slices.Clone(rs)
		slices.Reverse(rev)
		for _, order := range [][]string{rs, rev} {
			v := exec.Text(prefix + strings.Join(order, "") + strings.Join(inner, "") + suffix)
			l.exact[k] = append(l.exact[k], v)
			l.compared[k] = append(l.compared[k], v)
			l.byCol[k] = append(l.byCol[k], v)
		}
	}
}
