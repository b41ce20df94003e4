package exec_test

import (
	"context"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// regexCases are regular expression matches over the one-row table
// "one" with PostgreSQL 15's results (TestRegexText checks each there):
// where PostgreSQL's ARE and Go's RE2 read a pattern apart (\b, \s, .
// and newlines, classes, brackets, case folding), NULLs, SIMILAR TO's
// rewrite, errors, and the patterns refused by design (CANNOT).
var regexCases = []struct{ expr, want string }{
	// ~ and its NOT, ~*, NULLs.
	{`'abc' ~ 'b'`, "true"},
	{`'abc' ~ '^b'`, "false"},
	{`'abc' !~ '^b'`, "true"},
	{`'ABC' ~ 'b'`, "false"},
	{`'ABC' ~* 'b'`, "true"},
	{`'abc' ~* 'B'`, "true"},
	{`'abc' !~* 'B'`, "false"},
	{`NULL::text ~ 'a'`, "NULL"},
	{`'a' ~ NULL::text`, "NULL"},
	{`'' ~ ''`, "true"},
	{`'' ~ 'a*'`, "true"},
	{`'x' ~ 'a|'`, "true"},
	{`'x' ~ '()'`, "true"},
	// Anchors, . and newlines: . matches a newline, $ is the very end.
	{`E'a\nb' ~ 'a.b'`, "true"},
	{`E'a\n' ~ 'a$'`, "false"},
	{`E'b\na' ~ '^a'`, "false"},
	{`'ab' ~ 'a^b'`, "false"},
	{`'ab' ~ '\Aab\Z'`, "true"},
	// Escapes: \b is a backspace, \B a backslash, \s includes \v.
	{`'a b' ~ 'a\bb'`, "false"},
	{`E'a\bb' ~ 'a\bb'`, "true"},
	{`E'a\\b' ~ 'a\Bb'`, "true"},
	{`E'a\013b' ~ 'a\sb'`, "true"},
	{`E'a\tb' ~ 'a\Sb'`, "false"},
	{`'a1' ~ '\d'`, "true"},
	{`'ab' ~ '\d'`, "false"},
	{`'a_' ~ '^\w+$'`, "true"},
	{`'a-' ~ '^\w+$'`, "false"},
	{`'a-' ~ '\W'`, "true"},
	{`'1.5' ~ '^\d+\.\d+$'`, "true"},
	{`'105' ~ '^\d+\.\d+$'`, "false"},
	{`'a+b' ~ 'a\+b'`, "true"},
	{`'a{b' ~ 'a{b'`, "true"},
	{`'a}' ~ 'a}'`, "true"},
	{`'a]' ~ 'a]'`, "true"},
	// Brackets: ] first is a member, \ escapes, classes, ranges, - at an end.
	{`']' ~ '[]a]'`, "true"},
	{`'b' ~ '[^]a]'`, "true"},
	{`']' ~ '[^]a]'`, "false"},
	{`'-' ~ '[a-]'`, "true"},
	{`'-' ~ '[-a]'`, "true"},
	{`'b' ~ '[a-c]'`, "true"},
	{`'d' ~ '[a-c]'`, "false"},
	{`E'\n' ~ '[^a]'`, "true"},
	{`'x.y@ex.com' ~ '^[\w.-]+@[\w-]+\.[a-z]{2,}$'`, "true"},
	{`'x y@ex.com' ~ '^[\w.-]+@[\w-]+\.[a-z]{2,}$'`, "false"},
	{`'a' ~ '[[:alpha:]]'`, "true"},
	{`'1' ~ '[[:alpha:]]'`, "false"},
	{`'5' ~ '^[[:digit:][:upper:]]$'`, "true"},
	{`'Q' ~ '^[[:digit:][:upper:]]$'`, "true"},
	{`'q' ~ '^[[:digit:][:upper:]]$'`, "false"},
	{`'q' ~* '^[[:digit:][:upper:]]$'`, "true"},
	{`'A' ~* '[^a]'`, "false"},
	{`'B' ~* '[a-c]'`, "true"},
	{`E'\\' ~ '[\\]'`, "true"},
	{`'[' ~ '[[]'`, "true"},
	// Quantifiers and bounds.
	{`'aaa' ~ '^a{3}$'`, "true"},
	{`'aa' ~ '^a{3}$'`, "false"},
	{`'aaaa' ~ '^a{2,3}$'`, "false"},
	{`'aaaa' ~ '^a{2,}$'`, "true"},
	{`'ab' ~ '^a+?b$'`, "true"},
	{`'ab' ~ '^(?:a|b)+$'`, "true"},
	// Errors PostgreSQL raises for malformed patterns.
	{`'a' ~ '('`, queryError},
	{`'a' ~ 'a)'`, queryError},
	{`'a' ~ '[a'`, queryError},
	{`'a' ~ 'a\'`, queryError},
	{`'a' ~ '*a'`, queryError},
	{`'a' ~ 'a|*'`, queryError},
	{`'a' ~ 'a**'`, queryError},
	{`'a' ~ 'a*??'`, queryError},
	{`'a' ~ 'a{1}{2}'`, queryError},
	{`'a' ~ '^*'`, queryError},
	{`'a' ~ 'a{3,2}'`, queryError},
	{`'a' ~ 'a{256}'`, queryError},
	{`'a' ~ 'a{1'`, queryError},
	{`'a' ~ 'a{1 }'`, queryError},
	{`'a' ~ '[b-a]'`, queryError},
	{`'a' ~ '[a-c-e]'`, queryError},
	{`'a' ~ '[\d-z]'`, queryError},
	{`'a' ~ '[[:foo:]]'`, queryError},
	{`'a' ~ '[]'`, queryError},
	{`'a' ~ '\z'`, cannot_}, // an error there, not distinguished here
	// Spellings PostgreSQL reads as literals or bounds.
	{`'a{,2}' ~ '^a{,2}$'`, "true"},
	{`'a' ~ '^a{01}$'`, "true"},
	{`'a' ~ 'a{0}'`, "true"},
	{`'a' ~ '^a{1,}?$'`, "true"},
	{`'a' ~ '[--a]'`, "true"},
	{`'a' ~ '[!--]'`, "false"},
	{`'-' ~ '[[:alpha:]-]'`, "true"},
	// Refused: backreferences, lookahead, word constraints, \x, classes on
	// non-ASCII text, bounds past 255, collating elements.
	{`'aa' ~ '(a)\1'`, cannot_},
	{`'ab' ~ 'a(?=b)'`, cannot_},
	{`'a b' ~ '\ya\y'`, cannot_},
	{`'a' ~ '\x61'`, cannot_},
	{`'é' ~ '\w'`, cannot_},
	{`'É' ~* 'é'`, cannot_},
	{`'a' ~ '[[.a.]]'`, cannot_},
	{`'a' ~ '\q'`, cannot_},
	// Non-ASCII text without classes: characters, not bytes.
	{`'é' ~ '^.$'`, "true"},
	{`'é' ~ '^[^a]$'`, "true"},
	// SIMILAR TO: the whole string, % and _, . and ^ literal, ESCAPE.
	{`'abc' SIMILAR TO 'abc'`, "true"},
	{`'abc' SIMILAR TO 'a'`, "false"},
	{`'abc' SIMILAR TO 'a%'`, "true"},
	{`'abc' SIMILAR TO '_b_'`, "true"},
	{`'abc' SIMILAR TO '%(b|d)%'`, "true"},
	{`'abc' SIMILAR TO '(b|c)%'`, "false"},
	{`'abc' NOT SIMILAR TO '(b|c)%'`, "true"},
	{`'a.c' SIMILAR TO 'a.c'`, "true"},
	{`'abc' SIMILAR TO 'a.c'`, "false"},
	{`'a^c' SIMILAR TO 'a^c'`, "true"},
	{`'a%' SIMILAR TO 'a\%'`, "true"},
	{`'ab' SIMILAR TO 'a\%'`, "false"},
	{`'a%' SIMILAR TO 'a#%' ESCAPE '#'`, "true"},
	{`'ab' SIMILAR TO 'a#%' ESCAPE '#'`, "false"},
	{`'a\b' SIMILAR TO 'a\b' ESCAPE ''`, "true"},
	{`'ab' SIMILAR TO 'a[b-d]'`, "true"},
	{`'aaa' SIMILAR TO 'a+'`, "true"},
	{`'a1' SIMILAR TO 'a\d'`, "true"},
	{`'ab' SIMILAR TO 'a{1,2}b?'`, "true"},
	{`NULL::text SIMILAR TO 'a'`, "NULL"},
	{`'a' SIMILAR TO 'a' ESCAPE NULL::text`, "NULL"},
	{`'a' SIMILAR TO 'a' ESCAPE '##'`, queryError},

	// regexp_replace: the first match, leftmost-longest, or all with g.
	{`regexp_replace('(555) 123-4567', '[^0-9]', '', 'g')`, "5551234567"},
	{`regexp_replace('(555) 123-4567', '[^0-9]', '')`, "555) 123-4567"},
	{`regexp_replace('foobarbaz', 'b..', 'X')`, "fooXbaz"},
	{`regexp_replace('foobarbaz', 'b..', 'X', 'g')`, "fooXX"},
	{`regexp_replace('Hello World', 'o', '0', 'gi')`, "Hell0 W0rld"},
	{`regexp_replace('HellO', 'o', '0', 'i')`, "Hell0"},
	{`regexp_replace('HellO', 'o', '0', 'ic')`, "HellO"},
	{`regexp_replace('aaa', 'a|aa', 'X')`, "Xa"},
	{`regexp_replace('abcd', '(b|bc)(c|cd)?', '[\&]')`, "a[bcd]"},
	{`regexp_replace('a.b.c', '\.', '\\', 'g')`, "a\\b\\c"},
	{`regexp_replace('xay', 'a', '<\&>')`, "x<a>y"},
	{`regexp_replace('  trim  me ', '^\s+|\s+$', '', 'g')`, "trim  me"},
	{`regexp_replace(NULL::text, 'a', 'b')`, "NULL"},
	{`regexp_replace('a', 'a', NULL::text)`, "NULL"},
	{`regexp_replace('a', '(', 'b')`, queryError},
	{`regexp_replace('abc', '(b)', '\1')`, cannot_},
	{`regexp_replace('abc', 'b*?', 'x')`, cannot_},
	{`regexp_replace('abc', 'x*', '-', 'g')`, cannot_},
	{`regexp_replace('abc', 'b', 'x', 'n')`, cannot_},
	// regexp_like.
	{`regexp_like('Hello', '^h')`, "false"},
	{`regexp_like('Hello', '^h', 'i')`, "true"},
	{`regexp_like(NULL::text, 'a')`, "NULL"},
	// substring(s FROM pattern): the one subexpression, or the match.
	{`substring('foo@example.com' from '@(.*)$')`, "example.com"},
	{`substring('foo@example.com' from '@.*$')`, "@example.com"},
	{`substring('foo' from '@(.*)$')`, "NULL"},
	{`substring('order-1234-x' from '[0-9]+')`, "1234"},
	{`substring('order-1234-x' from '-([0-9]{2})')`, "12"},
	{`substring('aXbXc' from 'X(.)X')`, "b"},
	{`substring('abc', 'b|bc')`, "bc"},
	{`substring('abcabc' from '(a|ab)(c|bcd)')`, cannot_},
	{`substring('ab' from '(a*)b*')`, cannot_},
	{`substring('abc' from 'b.*?')`, cannot_},
	{`substr('a3b', '3')`, cannot_}, // a position there, not a pattern
	// substring(s SIMILAR p ESCAPE e): the whole string when it matches.
	{`substring('abc' similar 'a%' escape '#')`, "abc"},
	{`substring('abc' similar 'b%' escape '#')`, "NULL"},
	{`substring('foobar' similar '%#"o_b#"%' escape '#')`, cannot_},
}

// TestRegex evaluates regexCases with the executor.
func TestRegex(t *testing.T) {
	ctx := context.Background()
	s, err := catalog.LoadDDL(datetimeOneDDL, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	db := exec.Database{"one": {{exec.Int(1), exec.Null, exec.Null, exec.Null}}}
	for _, tc := range regexCases {
		if got := evalOne(ctx, t, s, db, tc.expr); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.expr, got, tc.want)
		}
	}
}
