package tag

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/equivalence/bind"
)

// A reference may use placeholders ($1, $2, ...) bound from the
// candidate: $k stands for the candidate's k-th parameter as
// pg_stat_statements numbers them (pg_query's normalization): the query's
// own parameters keep their numbers, and its constants, in text order,
// are numbered after the highest of them. So one catalog entry
//
//	match:     SELECT abalance FROM pgbench_accounts WHERE aid = 1
//	reference: SELECT a.abalance FROM pgbench_accounts a WHERE a.aid = $1
//
// covers the statement whatever constant the application sends.

// Parameterized is a query with its constants replaced by parameters.
type Parameterized struct {
	// SQL is the query with each constant replaced by $k.
	SQL string
	// Consts maps k to the literal text $k replaced ("42", "'abc'", "-1.5").
	Consts map[int]string
	// Spans are the replaced constants' offsets in the original text, in
	// text order: ReadShape's literals are checked against them.
	Spans [][2]int
}

// Parameterize replaces the constants of sql with parameters, as
// pg_query's normalization does, and records what each replaced. ok is
// false when sql has no constant to replace, does not parse, or the
// replacement cannot be traced back to literal tokens (then the caller
// judges sql as it is).
func Parameterize(sql string) (p Parameterized, ok bool) {
	norm, err := pg.Normalize(sql)
	if err != nil || norm == sql {
		return p, false
	}
	toks, err := pg.Scan(sql)
	if err != nil {
		return p, false
	}
	p = Parameterized{SQL: norm, Consts: map[int]string{}}
	j, last := 0, 0 // positions in norm and sql
	ts := toks.Tokens
	for i := 0; i < len(ts); i++ {
		t := ts[i]
		start, end := int(t.Start), int(t.End)
		if start < last || end > len(sql) {
			return Parameterized{}, false
		}
		gap := sql[last:start]
		if !strings.HasPrefix(norm[j:], gap) {
			return Parameterized{}, false
		}
		j += len(gap)
		if text := sql[start:end]; strings.HasPrefix(norm[j:], text) {
			j += len(text)
			last = end
			continue
		}
		// A replaced constant: norm has $k where sql has a literal,
		// possibly negated ("-5" is one constant to the grammar).
		k, n := bind.ParamAt(norm[j:])
		if n == 0 {
			return Parameterized{}, false
		}
		if t.Token == pg.Token_ASCII_45 && i+1 < len(ts) && isNumber(ts[i+1].Token) {
			i++
			end = int(ts[i].End)
		} else if !isConstant(t.Token) {
			return Parameterized{}, false
		}
		if _, dup := p.Consts[k]; dup || end > len(sql) {
			return Parameterized{}, false
		}
		p.Consts[k] = sql[start:end]
		p.Spans = append(p.Spans, [2]int{start, end})
		j += n
		last = end
	}
	if sql[last:] != norm[j:] || len(p.Consts) == 0 {
		return Parameterized{}, false
	}
	// The shape must read back as parameters where the constants were:
	// "SELECT''" normalizes to "SELECT$1", one identifier.
	if back, ok := bind.SubstituteVerbatim(norm, p.Consts); !ok || back != sql {
		return Parameterized{}, false
	}
	return p, true
}

func isNumber(t pg.Token) bool { return t == pg.Token_ICONST || t == pg.Token_FCONST }

func isConstant(t pg.Token) bool {
	switch t {
	case pg.Token_ICONST, pg.Token_FCONST, pg.Token_SCONST, pg.Token_USCONST, pg.Token_BCONST, pg.Token_XCONST,
		pg.Token_TRUE_P, pg.Token_FALSE_P, pg.Token_NULL_P:
		return true
	}
	return false
}

// HasParams reports whether sql uses a parameter ($1, ...) outside
// literals and comments.
func HasParams(sql string) bool {
	if !strings.Contains(sql, "$") {
		return false
	}
	res, err := pg.Scan(sql)
	if err != nil {
		return false
	}
	for _, t := range res.Tokens {
		if t.Token == pg.Token_PARAM {
			return true
		}
	}
	return false
}
