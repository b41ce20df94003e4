package exec

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// RegexSamples returns strings that the match s op pattern (op is ~, ~*
// or SIMILAR TO, with the ESCAPE text esc where given) accepts: each
// takes a different alternative, class member and repetition count, and
// for ~* a case-changed copy too. A refutation writes them into the
// column matched, so that a row passes the pattern (a random string
// almost never does). Only strings the executor's own match accepts are
// returned; none for a pattern it cannot run.
func RegexSamples(op, pattern string, esc *string) []string {
	icase := op == plan.OpIRegex
	if op == plan.OpSimilar {
		e, has := `\`, true
		if esc != nil {
			e, has = *esc, *esc != ""
		}
		var err error
		if pattern, err = similarEscape(pattern, e, has); err != nil {
			return nil
		}
	}
	info := compileARE(pattern, icase)
	if info.err != nil {
		return nil
	}
	re, err := syntax.Parse(info.re.String(), syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	var out []string
	for i := 0; i < 4; i++ {
		var b strings.Builder
		sample(&b, re, i)
		s := b.String()
		cands := []string{s}
		if icase {
			cands = append(cands, strings.ToUpper(s), strings.ToLower(s))
		}
		for _, c := range cands {
			if m, err := areMatch(c, pattern, icase); err == nil && m && !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// maxSample bounds a sample's length.
const maxSample = 64

// sample writes one string re matches, its choices varied by i.
func sample(b *strings.Builder, re *syntax.Regexp, i int) {
	if b.Len() > maxSample {
		return
	}
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		b.WriteRune(classMember(re.Rune, i))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte("axb1"[i%4])
	case syntax.OpCapture:
		sample(b, re.Sub[0], i)
	case syntax.OpStar, syntax.OpQuest:
		for k := 0; k < i%2; k++ {
			sample(b, re.Sub[0], i)
		}
	case syntax.OpPlus:
		for k := 0; k < 1+i%2; k++ {
			sample(b, re.Sub[0], i)
		}
	case syntax.OpRepeat:
		n := re.Min
		if (re.Max < 0 || re.Max > n) && i%2 == 1 {
			n++
		}
		for k := 0; k < n; k++ {
			sample(b, re.Sub[0], i)
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			sample(b, s, i)
		}
	case syntax.OpAlternate:
		sample(b, re.Sub[i%len(re.Sub)], i)
	}
}

// classMember picks a printable ASCII member of the class (ranges as
// pairs), letters and digits first, varied by i.
func classMember(ranges []rune, i int) rune {
	in := func(c rune) bool {
		for k := 0; k+1 < len(ranges); k += 2 {
			if ranges[k] <= c && c <= ranges[k+1] {
				return true
			}
		}
		return false
	}
	var cands []rune
	for _, c := range "abcxyzABC0123_-. @" {
		if in(c) {
			cands = append(cands, c)
		}
	}
	for c := rune(0x20); c < 0x7f && len(cands) == 0; c++ {
		if in(c) && unicode.IsPrint(c) {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		if len(ranges) == 0 {
			return 'a'
		}
		return ranges[0]
	}
	return cands[i%len(cands)]
}
