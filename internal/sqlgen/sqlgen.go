// Package sqlgen builds SQL from a small grammar over a real schema, for
// structure-aware fuzzing of the planner and the judge.
//
// Every table and column it names comes from a catalog.Schema, so most of
// what it writes plans; the rest (type mismatches the grammar does not
// track, ambiguous names after joins) exercises error paths. Besides
// ordinary SELECTs with joins, grouping and subqueries, it deliberately
// produces the shapes that have blown up the planner before (issue 9):
// deep chains of nested subqueries and IS DISTINCT FROM, long set-operation
// chains, CTE fan-out, long IN lists, OR/AND chains, row-value IN, and
// ORDER BY ... LIMIT over derived tables.
//
// Generation is a pure function of the Source: a seeded Source
// (NewRandSource) for unit tests and corpora, or a ByteSource over fuzz
// input so that `go test -fuzz` mutates the structure of the query rather
// than its characters.
package sqlgen

import (
	"strconv"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// Config bounds what the generator writes. Zero fields take defaults.
type Config struct {
	// MaxDepth bounds the recursive grammar: subquery nesting inside
	// ordinary queries and boolean operator depth. Default 3.
	MaxDepth int
	// MaxChain bounds the deliberately deep shapes: nested scalar, EXISTS
	// and IN subqueries, nested IS DISTINCT FROM. Default 8.
	MaxChain int
	// MaxList bounds IN lists, OR/AND chains, row-value IN lists and
	// VALUES rows. Default 64.
	MaxList int
	// MaxBranches bounds set-operation chains. Default 16.
	MaxBranches int
	// MaxCTEs bounds CTE fan-out. Default 6.
	MaxCTEs int
	// Params, when positive, makes about a quarter of the literals
	// parameters $1..$Params instead (a query as a driver prepares it).
	// Zero writes no parameter and draws as before, so that existing
	// seeds keep their queries.
	Params int
}

// FuzzConfig reaches the sizes of the issue 9 reproducers that a judge
// must handle within a fraction of a second once fixed.
var FuzzConfig = Config{MaxDepth: 4, MaxChain: 30, MaxList: 5000, MaxBranches: 400, MaxCTEs: 15}

func (c Config) withDefaults() Config {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.MaxDepth, 3)
	def(&c.MaxChain, 8)
	def(&c.MaxList, 64)
	def(&c.MaxBranches, 16)
	def(&c.MaxCTEs, 6)
	return c
}

// Generator writes queries over one schema. It is not safe for
// concurrent use; make one per goroutine.
type Generator struct {
	s      *catalog.Schema
	src    Source
	cfg    Config
	tables []*catalog.Table
	alias  int
}

// New returns a generator over s drawing decisions from src. A schema
// without any table with columns yields queries over VALUES only.
func New(s *catalog.Schema, src Source, cfg Config) *Generator {
	g := &Generator{s: s, src: src, cfg: cfg.withDefaults()}
	for _, t := range s.Tables {
		if len(t.Columns) > 0 {
			g.tables = append(g.tables, t)
		}
	}
	return g
}

// Query returns one query.
func (g *Generator) Query() string {
	g.alias = 0
	q, _, _ := g.shape()
	return q
}

// kind is the comparison class of a column: values of one kind compare
// with each other and with the literals the generator writes for it.
type kind uint8

const (
	kNum kind = iota
	kText
	kOther
)

func kindOf(t catalog.Type) kind {
	switch {
	case t.IsNumeric():
		return kNum
	case t == catalog.Text:
		return kText
	}
	return kOther
}

// col is a column visible in a scope, qualified by its range variable.
type col struct {
	qual, name string
	k          kind
}

func (c col) String() string {
	if c.qual == "" {
		return ident(c.name)
	}
	return c.qual + "." + ident(c.name)
}

func (g *Generator) pick(n int) int { return g.src.Intn(n) }

func (g *Generator) chance(pct int) bool { return g.pick(100) < pct }

// size picks a length in [1, max], log-uniformly so that short lists stay
// common while the maximum is still reached.
func (g *Generator) size(max int) int {
	if max <= 1 {
		return 1
	}
	bits := 0
	for v := max; v > 0; v >>= 1 {
		bits++
	}
	hi := 1 << g.pick(bits+1)
	if hi > max {
		hi = max
	}
	return 1 + g.pick(hi)
}

func (g *Generator) newAlias(prefix string) string {
	g.alias++
	return prefix + strconv.Itoa(g.alias)
}

func (g *Generator) table() *catalog.Table {
	if len(g.tables) == 0 {
		return nil
	}
	return g.tables[g.pick(len(g.tables))]
}

// tableWith picks a table having a column of kind k, falling back to any
// table; the column is the one picked, or nil.
func (g *Generator) tableWith(k kind) (*catalog.Table, *catalog.Column) {
	start := g.pick(len(g.tables) + 1)
	for i := range g.tables {
		t := g.tables[(start+i)%len(g.tables)]
		var cs []int
		for j, c := range t.Columns {
			if kindOf(c.Type) == k {
				cs = append(cs, j)
			}
		}
		if len(cs) > 0 {
			return t, &t.Columns[cs[g.pick(len(cs))]]
		}
	}
	return g.table(), nil
}

func scopeOf(t *catalog.Table, alias string) []col {
	sc := make([]col, len(t.Columns))
	for i, c := range t.Columns {
		sc[i] = col{qual: alias, name: c.Name, k: kindOf(c.Type)}
	}
	return sc
}

func (g *Generator) colOf(sc []col, k kind) (col, bool) {
	var idx []int
	for i, c := range sc {
		if c.k == k {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return col{}, false
	}
	return sc[idx[g.pick(len(idx))]], true
}

func (g *Generator) anyCol(sc []col) col { return sc[g.pick(len(sc))] }
