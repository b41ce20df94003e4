package refute

import (
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// PostgreSQL's char(n) (bpchar) is blank-padded; the executor models it
// (planner/exec/bpchar.go) and pads generated values itself, so the
// generator gives char(n) columns values of at most n characters that
// do not end in a blank (a value's own trailing blanks would only repeat
// the padding), and also their full-width spellings, on which plans that
// fold a string cast (c::text) still execute. A query with a string
// constant ending in a blank beside a char(n) value is one the executor
// cannot execute (see exec's bpLiteral), so such pairs are not refuted.

// charWidthOf reports whether c is a PostgreSQL char(n) column and n.
func charWidthOf(c catalog.Column) (int, bool) {
	base, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(c.TypeSQL)), "(")
	switch strings.TrimSpace(base) {
	case "char", "character", "bpchar", "nchar":
		sp := specOf(c)
		if !sp.hasArgs {
			return 1, true
		}
		return sp.p, true
	}
	return 0, false
}
