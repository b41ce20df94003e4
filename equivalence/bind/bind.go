// Package bind writes a statement's parameters as text: a value bound on
// the wire (the extended protocol's Bind) as the SQL literal PostgreSQL
// would read for the parameter, and a statement with each $k replaced by
// the literal text it is given. It is the one binder of the judge and
// the proxy: the proxy writes a client's bound values into the texts the
// judge reads (never into what runs: the server gets the Bind as sent),
// and binds a candidate's constants into a reference's placeholders.
//
// It imports nothing of the planner, so the relay (proxy/tag) may use it.
package bind

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// Param is one parameter value as a Bind message carries it.
type Param struct {
	// OID is the parameter's type, from Parse or the server's
	// ParameterDescription; 0 leaves the type to be inferred from the
	// statement, as the server does for an unspecified type.
	OID uint32
	// Binary is true for the binary format code (1), false for text (0).
	Binary bool
	// Value is the value's bytes; nil is NULL (the Bind's -1 length).
	Value []byte
}

// FromWire pairs a Bind's values with their types and format codes as
// the protocol assigns them: a type past oids is unspecified (0), one
// format code applies to every value, and a value past several codes is
// text.
func FromWire(values [][]byte, oids []uint32, formats []int16) []Param {
	ps := make([]Param, len(values))
	for i, v := range values {
		var oid uint32
		if i < len(oids) {
			oid = oids[i]
		}
		var format int16
		switch {
		case len(formats) == 1:
			format = formats[0]
		case i < len(formats):
			format = formats[i]
		}
		ps[i] = Param{OID: oid, Binary: format == 1, Value: v}
	}
	return ps
}

// Substitute replaces each parameter $k of sql that vals has with its
// text; a text starting with "-" is parenthesized, so that "- $1" bound
// to -3 does not become a comment ("--3") and binds as the placeholder
// did. Parameters without a text stay. Placeholders are found by
// PostgreSQL's own scanner, so "$1" inside a string, a comment or a
// dollar-quoted body stays. ok is false when sql cannot be scanned.
func Substitute(sql string, vals map[int]string) (string, bool) {
	return substitute(sql, vals, true)
}

// SubstituteVerbatim is Substitute writing every text as it is, negative
// numbers included: it gives back the query a shape was made from
// (proxy/tag.Parameterize checks its shapes so).
func SubstituteVerbatim(sql string, vals map[int]string) (string, bool) {
	return substitute(sql, vals, false)
}

func substitute(sql string, vals map[int]string, paren bool) (string, bool) {
	res, err := pg.Scan(sql)
	if err != nil {
		return sql, false
	}
	var b strings.Builder
	last := 0
	for _, t := range res.Tokens {
		if t.Token != pg.Token_PARAM {
			continue
		}
		start, end := int(t.Start), int(t.End)
		if start < last || end > len(sql) {
			return sql, false
		}
		k, n := ParamAt(sql[start:end])
		v, has := vals[k]
		if n != end-start || !has {
			continue
		}
		b.WriteString(sql[last:start])
		if paren && strings.HasPrefix(v, "-") {
			v = "(" + v + ")"
		}
		b.WriteString(v)
		last = end
	}
	b.WriteString(sql[last:])
	return b.String(), true
}

// ParamAt reads a parameter $k at the start of s and returns k and its
// length; n is 0 when s does not start with one.
func ParamAt(s string) (k, n int) {
	if len(s) < 2 || s[0] != '$' {
		return 0, 0
	}
	n = 1
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	k, err := strconv.Atoi(s[1:n])
	if err != nil || k < 1 {
		return 0, 0
	}
	return k, n
}
