package refute

import (
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// colKey names one base-table column.
type colKey struct {
	table string
	ord   int
}

// generator builds small databases that satisfy a schema's declared
// constraints. Its value pools are seeded with the literals of the two
// queries so that predicates are both satisfied and violated.
type generator struct {
	s       *catalog.Schema
	order   []*catalog.Table // parents before children (cycles broken)
	rules   constraints
	trustFK bool
	*valuePools
	// empty marks tables that can never get a row: a NOT NULL column of a
	// type the executor cannot hold.
	empty   map[string]bool
	noNulls bool
	// rowRules holds the row rules of the tables that have any (see
	// rules.go); cannot is set when evaluating them needed something the
	// executor does not model: the search must stop, as its databases may
	// not be ones the engine accepts.
	rowRules map[string]*tableRules
	cannot   string
	// nonIntLits caches nonIntegerLits; nil until first used.
	nonIntLits *[]exec.Value
	// mem is the last database's memory, once the caller recycles
	// them (see recycle).
	mem *genMemory
	// feeds marks, in a tier whose read tables hold rows and whose
	// foreign keys hold, the tables those reference (transitively): each
	// gets a row too, or the read tables' rows would lose their parents
	// and be dropped (a typical database of flights needs an airport).
	feeds map[string]bool
}

// valuePools are what a generator draws values from. They depend on the
// schema and the queries' literals only, so the generators of one
// search's tiers share them (see newGenerators).
type valuePools struct {
	// lits holds, per column, the literals compared with it and their
	// neighbours; typeLits the literals of every query constant by type.
	lits     map[colKey][]exec.Value
	exact    map[colKey][]exec.Value
	compared map[colKey][]exec.Value // exact less arithmetic's operands
	typeLits map[catalog.Type][]exec.Value
	// pools holds each table's column pools (see columnPools).
	pools map[string][]colPools
}

func newValuePools(s *catalog.Schema, lits *literals) *valuePools {
	vp := &valuePools{lits: map[colKey][]exec.Value{}, exact: map[colKey][]exec.Value{}, compared: map[colKey][]exec.Value{},
		typeLits: map[catalog.Type][]exec.Value{}, pools: map[string][]colPools{}}
	if lits != nil {
		for k, vs := range lits.byCol {
			t := s.Table(k.table)
			if t == nil || k.ord >= len(t.Columns) {
				continue
			}
			vp.lits[k] = fitAll(s.Dialect, t.Columns[k.ord], vs)
			vp.exact[k] = fitAll(s.Dialect, t.Columns[k.ord], lits.exact[k])
			vp.compared[k] = fitAll(s.Dialect, t.Columns[k.ord], lits.compared[k])
		}
		for typ, vs := range lits.byType {
			vp.typeLits[typ] = vs
		}
	}
	return vp
}

// executable reports whether the executor holds values of column c in
// dialect d. PostgreSQL's timestamp, with or without time zone, is
// modelled at its default precision only (a timestamp(0) column rounds
// what is stored). A timestamp with time zone holds UTC instants: stored
// and compared they do not depend on the session's TimeZone (the
// executor refuses the expressions that do), and the INSERTs write them
// with their +00 offset. An interval column holds intervals of the
// executor's model (no fields or precision declared).
// A SQLite date-time column (DATETIME, TIMESTAMP) holds whatever text it
// is given: generated timestamps reach the engine as their text
// ('2020-01-02 03:04:05', see exec.SQLiteConverter), as SQLite's own
// date functions write them, so that such a column is not NULL only.
func executable(d catalog.Dialect, c *catalog.Column) bool {
	switch c.Type {
	case catalog.Int, catalog.Numeric, catalog.Float, catalog.Text, catalog.Bool, catalog.Date:
		return true
	case catalog.Timestamp:
		if d == catalog.SQLite {
			return true
		}
		t := strings.Join(strings.Fields(strings.ToLower(c.TypeSQL)), " ")
		return d == catalog.Postgres && (t == "timestamp" || t == "timestamp without time zone" || t == "timestamp(6)" || t == "timestamp(6) without time zone" ||
			t == "timestamptz" || t == "timestamptz(6)" || t == "timestamp with time zone" || t == "timestamp(6) with time zone")
	case catalog.Interval:
		return d == catalog.Postgres && strings.EqualFold(strings.TrimSpace(c.TypeSQL), "interval")
	case catalog.UUID:
		// Held as its canonical text (exec/uuid.go).
		return d == catalog.Postgres && strings.EqualFold(strings.TrimSpace(c.TypeSQL), "uuid")
	case catalog.JSON:
		// jsonb, not json, whose text the executor does not model.
		return d == catalog.Postgres && strings.EqualFold(strings.TrimSpace(c.TypeSQL), "jsonb")
	}
	return false
}

func newGenerator(s *catalog.Schema, rules constraints, lits *literals) *generator {
	return newGenerators(s, lits, rules)[0]
}

// newGenerators returns a generator per rules, sharing their value pools.
func newGenerators(s *catalog.Schema, lits *literals, rules ...constraints) []*generator {
	vp := newValuePools(s, lits)
	gens := make([]*generator, len(rules))
	for i, r := range rules {
		g := &generator{s: s, order: neededTables(s, r), rules: r, trustFK: r.trustFK, noNulls: r.noNulls, valuePools: vp, empty: map[string]bool{}}
		for _, t := range g.order {
			if tr := rulesFor(s, t); tr != nil {
				if g.rowRules == nil {
					g.rowRules = map[string]*tableRules{}
				}
				g.rowRules[t.Name] = tr
				if tr.err != nil {
					g.cannot = tr.err.Error()
				}
			}
			if r.cannotHoldRows(s, t) {
				g.empty[t.Name] = true
			}
		}
		if why := unmodelledTables(s, g.order); why != "" {
			g.cannot = why
		}
		g.feeds = fedTables(s, r)
		gens[i] = g
	}
	return gens
}

// fedTables lists the tables that the tables rules makes hold rows
// reference through their foreign keys, transitively, when the foreign
// keys are kept (see generator.feeds).
func fedTables(s *catalog.Schema, rules constraints) map[string]bool {
	if !rules.nonEmpty || !rules.trustFK || rules.read == nil {
		return nil
	}
	feeds := map[string]bool{}
	var visit func(t *catalog.Table)
	visit = func(t *catalog.Table) {
		for _, fk := range t.ForeignKeys {
			if p := s.Table(fk.RefTable); p != nil && p != t && !feeds[p.Name] && !rules.read[p.Name] {
				feeds[p.Name] = true
				visit(p)
			}
		}
	}
	for name := range rules.read {
		if t := s.Table(name); t != nil {
			visit(t)
		}
	}
	return feeds
}

// neededTables is tableOrder restricted, when rules.read is set, to the
// tables the queries read and (foreign keys trusted) the tables those
// reference, transitively: no other table can change a result, and
// filling them was most of the generator's work on wide schemas.
func neededTables(s *catalog.Schema, rules constraints) []*catalog.Table {
	order := tableOrder(s)
	if rules.read == nil {
		return order
	}
	need := map[string]bool{}
	var add func(name string)
	add = func(name string) {
		if need[name] {
			return
		}
		need[name] = true
		if t := s.Table(name); t != nil && rules.trustFK {
			for _, fk := range t.ForeignKeys {
				add(fk.RefTable)
			}
		}
	}
	for name := range rules.read {
		add(name)
	}
	out := order[:0:0]
	for _, t := range order {
		if need[t.Name] {
			out = append(out, t)
		}
	}
	return out
}

// tableOrder lists the schema's base tables with every referenced table
// before its referencing tables where the references are acyclic.
func tableOrder(s *catalog.Schema) []*catalog.Table {
	var order []*catalog.Table
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(t *catalog.Table)
	visit = func(t *catalog.Table) {
		if state[t.Name] != 0 {
			return
		}
		state[t.Name] = 1
		for _, fk := range t.ForeignKeys {
			if p := s.Table(fk.RefTable); p != nil && p != t && !p.IsView() {
				visit(p)
			}
		}
		state[t.Name] = 2
		order = append(order, t)
	}
	for _, t := range s.Tables {
		if !t.IsView() {
			visit(t)
		}
	}
	return order
}
