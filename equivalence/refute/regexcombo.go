package refute

import (
	"slices"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
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

// regexCall reads x as a match of its first argument against a constant
// pattern: ~, ~*, SIMILAR TO, regexp_like, regexp_replace and
// substring(s FROM pattern); op is the match as exec.RegexSamples
// names it. ok is false for anything else, or a pattern, flags or
// escape that is no constant.
func regexCall(x *plan.Expr) (op, pattern string, esc *string, ok bool) {
	constText := func(i int) (string, bool) {
		if i >= len(x.Args) || x.Args[i].Kind != plan.Const || x.Args[i].Null {
			return "", false
		}
		return x.Args[i].Value, true
	}
	pattern, ok = constText(1)
	if !ok {
		return "", "", nil, false
	}
	icaseFlags := func(i int) (string, bool) {
		if i >= len(x.Args) {
			return plan.OpRegex, true
		}
		f, ok := constText(i)
		if !ok {
			return "", false
		}
		if j := strings.LastIndexAny(f, "ic"); j >= 0 && f[j] == 'i' {
			return plan.OpIRegex, true
		}
		return plan.OpRegex, true
	}
	switch {
	case x.Kind == plan.Op && (x.Name == plan.OpRegex || x.Name == plan.OpIRegex) && len(x.Args) == 2:
		return x.Name, pattern, nil, true
	case x.Kind == plan.Op && x.Name == plan.OpSimilar || x.Kind == plan.Func && x.Name == "substring" && len(x.Args) == 3:
		if len(x.Args) == 3 {
			e, ok := constText(2)
			if !ok {
				return "", "", nil, false
			}
			esc = &e
		}
		return plan.OpSimilar, pattern, esc, true
	case x.Kind == plan.Func && x.Name == "substring" && len(x.Args) == 2:
		return plan.OpRegex, pattern, nil, true
	case x.Kind == plan.Func && x.Name == "regexp_like":
		op, ok = icaseFlags(2)
		return op, pattern, nil, ok
	case x.Kind == plan.Func && x.Name == "regexp_replace":
		op, ok = icaseFlags(3)
		return op, pattern, nil, ok
	}
	return "", "", nil, false
}

// regexSamples adds, for a column matched by a regular expression
// with a constant pattern (see regexCall), strings the pattern accepts
// and their neighbours, most of which it rejects: a random string
// almost never passes a pattern. For regexp_replace, two matches in a
// row too (one replaced, or all).
func (l *literals) regexSamples(key colKey, x *plan.Expr) {
	op, pattern, esc, ok := regexCall(x)
	if !ok {
		return
	}
	samples := exec.RegexSamples(op, pattern, esc)
	if len(samples) > 0 {
		if l.regexes == nil {
			l.regexes = map[colKey][]string{}
		}
		l.regexes[key] = append(l.regexes[key], samples[0])
		if x.Name == "regexp_replace" {
			samples = append(samples, samples[0]+samples[0], samples[0]+"a"+samples[len(samples)-1])
		}
	}
	for _, s := range samples {
		nb := neighbours(exec.Text(s), false)
		l.exact[key] = append(l.exact[key], nb[0])
		l.compared[key] = append(l.compared[key], nb[0])
		l.byCol[key] = append(l.byCol[key], nb...)
	}
}

// replaceSeeds: regexp_replace(c, pattern, ...) compared with a
// constant (regexp_replace(phone, '[^0-9]', the empty string, 'g') =
// '555') needs a value of c whose replacement is that constant: its
// characters with a match of the pattern between them ("5-5-5"), or
// before them.
func (l *literals) replaceSeeds(p *plan.Plan, alias map[plan.ColumnID]plan.ColumnID, x *plan.Expr) {
	if x.Kind != plan.Op || len(x.Args) != 2 {
		return
	}
	for i, f := range x.Args {
		lit := x.Args[1-i]
		if f.Kind != plan.Func || f.Name != "regexp_replace" || len(f.Args) < 3 || lit.Kind != plan.Const || lit.Null || lit.Typ != catalog.Text {
			continue
		}
		key, _, ok := base(p, alias, f.Args[0])
		if !ok {
			continue
		}
		op, pattern, _, ok := regexCall(f)
		if !ok {
			continue
		}
		samples := exec.RegexSamples(op, pattern, nil)
		if len(samples) == 0 {
			continue
		}
		m := samples[0]
		var woven strings.Builder
		for _, r := range lit.Value {
			woven.WriteRune(r)
			woven.WriteString(m)
		}
		for _, s := range []string{woven.String(), m + lit.Value, m + m + lit.Value} {
			v := exec.Text(s)
			l.exact[key] = append(l.exact[key], v)
			l.compared[key] = append(l.compared[key], v)
			l.byCol[key] = append(l.byCol[key], v)
		}
	}
}
