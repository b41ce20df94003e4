package refute

import (
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// PostgreSQL's char(n) (bpchar) ignores trailing blanks: 'ab ' = 'ab'
// holds between two char(n) values and between a char(n) column and a
// literal, and length('ab '::char(3)) is 2. The executor gives text
// semantics to every character type (the catalog folds them), so the
// refuter keeps away from blanks there: generated char(n) values never
// end in a blank (see fit), and a pair whose queries hold a string
// literal that ends in one, beside a char(n) column they read, is not
// searched. Without trailing blanks on either side, char(n) comparisons,
// lengths and casts to text agree with text semantics.

const blankPaddedReason = "cannot execute: a string literal ending in a blank beside a char(n) column (blank-padded comparison)"

// isBlankPadded reports whether c is a PostgreSQL char(n) column.
func isBlankPadded(c catalog.Column) bool {
	base, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(c.TypeSQL)), "(")
	switch strings.TrimSpace(base) {
	case "char", "character", "bpchar", "nchar":
		return true
	}
	return false
}

// blankLiteralBesideChar reports whether the plans hold a string literal
// ending in a blank while reading a char(n) column of a PostgreSQL
// schema: the case whose semantics the executor does not model.
func blankLiteralBesideChar(s *catalog.Schema, read map[string]bool, plans ...*plan.Plan) bool {
	if s.Dialect != catalog.Postgres {
		return false // SQLite neither pads nor strips
	}
	padded := false
	for _, t := range s.Tables {
		if !read[t.Name] {
			continue
		}
		for _, c := range t.Columns {
			padded = padded || isBlankPadded(c)
		}
	}
	if !padded {
		return false
	}
	found := false
	for _, p := range plans {
		if p == nil || p.Root == nil {
			continue
		}
		p.Root.WalkNodes(func(n *plan.Node) {
			n.Exprs(func(e **plan.Expr) {
				plan.WalkDeep(*e, func(x *plan.Expr) {
					if x.Kind == plan.Const && !x.Null && strings.HasSuffix(x.Value, " ") {
						found = true
					}
				})
			})
		})
	}
	return found
}
