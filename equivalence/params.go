package equivalence

import (
	"strings"

	"github.com/pgequiv/pgequiv/equivalence/refute"
)

// Param is a value a counterexample binds to a parameter: "$1 = 5".
// Queries with parameters are judged for every value of every parameter
// (the same $n in both queries is one value), so a counterexample to
// such a pair is a database and values for its parameters.
type Param = refute.Param

// paramList is "$1 = 5, $2 = NULL", each value through redact.
func (c *Counterexample) paramList(redact func(string) string) string {
	parts := make([]string, len(c.Params))
	for i, p := range c.Params {
		parts[i] = p.String()
		if redact != nil && !p.Null {
			parts[i] = p.Name + " = " + redact(p.Literal())
		}
	}
	return strings.Join(parts, ", ")
}

// redactParam hides p's value as redactValue hides a result value.
func redactParam(redact func(string) string, p Param) Param {
	if !p.Null {
		p.Value = redactValue(redact, p.Value)
	}
	return p
}
