package refute

import (
	"testing"
	"unicode/utf8"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestPadTo: a literal fitted to char(n) has exactly n characters, no
// trailing blank, and stays valid UTF-8 (a campaign found 'é' cut to a
// lone 0xc3 byte, which PostgreSQL refuses).
func TestPadTo(t *testing.T) {
	for _, c := range []struct{ typ, in, want string }{
		{"char(3)", "ab", "abx"},
		{"char(3)", "abcd", "abc"},
		{"char(3)", "ab ", "abx"},
		{"char(3)", "a b", "a b"},
		{"char(2)", "a bc", "ax"},
		{"char(2)", "é", "éx"},
		{"char(1)", "éa", "é"},
		{"char(3)", "日本語の", "日本語"},
		{"varchar(2)", "ééé", "éé"},
		{"text", "é ", "é "},
	} {
		got := padTo(catalog.Column{TypeSQL: c.typ}, c.in)
		if got != c.want || !utf8.ValidString(got) {
			t.Errorf("padTo(%s, %q) = %q, want %q", c.typ, c.in, got, c.want)
		}
	}
}

// TestDropLastRune: a literal's shorter neighbour stays valid UTF-8 (a
// campaign found 'é' cut to a lone 0xc3 byte in a generated database).
func TestDropLastRune(t *testing.T) {
	for in, want := range map[string]string{"abc": "ab", "é": "", "aé": "a", "日本": "日", "a": ""} {
		if got := dropLastRune(in); got != want || !utf8.ValidString(got) {
			t.Errorf("dropLastRune(%q) = %q, want %q", in, got, want)
		}
	}
}
