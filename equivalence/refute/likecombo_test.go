package refute

import (
	"slices"
	"testing"
)

// TestCombineLikes: several LIKE patterns on one column give strings that
// match all of them, and all but each one; patterns whose fixed prefixes
// or suffixes disagree, or one without %, give none.
func TestCombineLikes(t *testing.T) {
	cases := []struct {
		patterns []string
		want     []string
	}{
		{[]string{"%(voice)%", "%(uncredited)%"}, []string{"(voice)(uncredited)"}},
		{[]string{"Re: %", "%[draft]%", "%?"}, []string{"Re: [draft]?", "[draft]?", "Re: ?", "Re: [draft]"}},
		{[]string{"ab%", "a%", `%\%x`}, []string{"ab%x", "a%x", "ab%x", "ab"}},
		{[]string{"a_c%", "%d_"}, []string{"aacda"}},
		{[]string{"ab%", "b%"}, nil},                                     // prefixes disagree
		{[]string{"%x", "%y"}, nil},                                      // suffixes disagree
		{[]string{"abc", "%b%"}, nil},                                    // no % in one: it is the string
		{[]string{"%only%"}, nil},                                        // one pattern: its neighbours do
		{[]string{"%a%", "%b%", "%c%", "%d%", "%e%", "%f%", "%g%"}, nil}, // beyond maxLikeCombo
	}
	for _, c := range cases {
		if got := combineLikes(c.patterns); !slices.Equal(got, c.want) {
			t.Errorf("%q: %q, want %q", c.patterns, got, c.want)
		}
	}
}
