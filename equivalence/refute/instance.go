package refute

import (
	"context"
	"math/rand/v2"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// mode tunes one instance: how many rows, how often NULLs and literals.
type mode struct {
	maxRows  int // rows per table drawn from 0..maxRows
	pNull    float64
	pLit     float64
	pDup     float64
	pWide    float64
	allEmpty bool
}

func modeFor(i int, rng *rand.Rand) mode {
	switch i {
	case 0:
		return mode{allEmpty: true}
	case 1:
		return mode{maxRows: 1, pLit: 0.6}
	case 2:
		return mode{maxRows: 1, pNull: 0.5, pLit: 0.3}
	}
	m := mode{maxRows: 3, pNull: 0.15, pLit: 0.5, pDup: 0.15, pWide: 0.05}
	switch rng.IntN(6) {
	case 0:
		m.maxRows = 8
		m.pWide = 0.3
	case 1:
		m.maxRows = 2
		m.pNull = 0.4
	case 2:
		m.pLit = 0.85
	case 3:
		m.pDup = 0.5
	}
	return m
}

// instance builds database number i of the search: deterministic in
// (seed, i).
func (g *generator) instance(seed uint64, i int) exec.Database {
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	m := modeFor(i, rng)
	mem := g.mem
	if mem != nil && !mem.free {
		mem = nil // the last database is still in use
	}
	var db exec.Database
	if mem != nil && mem.db != nil {
		mem.free, mem.off = false, 0
		db = mem.db
		clear(db)
	} else {
		db = make(exec.Database, len(g.order))
		if mem != nil {
			mem.free, mem.off, mem.db = false, 0, db
		}
	}
	for _, t := range g.order {
		db[t.Name] = [][]exec.Value{}
	}
	if m.allEmpty && !g.rules.nonEmpty {
		return db
	}
	for _, t := range g.order {
		if g.empty[t.Name] {
			continue
		}
		n := rng.IntN(m.maxRows + 1)
		if m.maxRows > 3 && n > 3 && rng.IntN(2) == 0 {
			n = rng.IntN(4)
		}
		if g.rules.mustHoldRows(g.s, t) || g.feeds[t.Name] && !g.rules.cannotHoldRows(g.s, t) {
			n = max(n, 1)
		}
		if n == 0 {
			continue
		}
		kept := make([][]exec.Value, 0, n)
		// A row referencing its own table finds its parents in db.
		selfRef := false
		for _, fk := range t.ForeignKeys {
			selfRef = selfRef || fk.RefTable == t.Name
		}
		pools := g.columnPools(t)
		rows := rowBlock{buf: mem.take(n * len(t.Columns))}
		tr := g.rowRules[t.Name]
		var outs [][]exec.Value // tr's outputs of the kept rows
		for range n {
			for try := 0; try < 8; try++ {
				row := rows.next(len(t.Columns))
				ok := g.row(rng, m, t, pools, row, kept, db)
				var out []exec.Value
				if ok && tr != nil {
					var err error
					out, ok, err = tr.admit(context.Background(), row, kept, outs)
					if err != nil {
						g.cannot = err.Error()
						return db
					}
				}
				if ok && keysHold(t, kept, row, -1) {
					if tr != nil {
						outs = append(outs, out)
					}
					kept = append(kept, row)
					rows.keep(len(row))
					if selfRef {
						db[t.Name] = kept
					}
					break
				}
			}
		}
		db[t.Name] = kept
	}
	// Rows were admitted against the rules as drawn; only a repaired
	// reference (set to NULL, or its row dropped) can break one since.
	if g.trustFK && repairFKs(g.s, db) && g.rowRules != nil {
		g.legalize(db)
	}
	return db
}

// genMemory is the memory of a generator's last database, which the
// next may reuse once the caller is done with it (see recycle).
type genMemory struct {
	free bool          // the caller is done with the last database
	db   exec.Database // the last database's map
	vals []exec.Value  // the block its rows were carved from
	off  int           // the values of vals used
}

// recycle tells g that no database instance returned is in use any
// more: the next may reuse their memory. A search tries hundreds of
// databases and keeps one at most, and allocating (and collecting) each
// afresh was a large share of the generator's time. Without a call,
// instance allocates each database afresh.
func (g *generator) recycle() {
	if g.mem == nil {
		g.mem = &genMemory{}
	}
	g.mem.free = true
}

// keep tells g that the databases instance returned so far stay in use:
// their memory is g's no more.
func (g *generator) keep() { g.mem = nil }

// take returns n zeroed values from m's block, or newly allocated ones
// when m is nil.
func (m *genMemory) take(n int) []exec.Value {
	if m == nil {
		return make([]exec.Value, n)
	}
	if m.off+n > len(m.vals) {
		// The old block may hold this database's rows already: it is
		// left to them.
		m.vals, m.off = make([]exec.Value, max(n, 2*len(m.vals), 256)), 0
	}
	out := m.vals[m.off : m.off+n : m.off+n]
	m.off += n
	clear(out)
	return out
}

// rowBlock hands out the rows of one table of an instance from one
// block: a drawn row that is not kept (it broke a key) leaves its space
// to the next draw.
type rowBlock struct{ buf []exec.Value }

// next is space for a row of n values; every value is overwritten
// before the row is kept.
func (b *rowBlock) next(n int) []exec.Value {
	if len(b.buf) < n {
		b.buf = make([]exec.Value, n)
	}
	return b.buf[:n:n]
}

// keep marks the row next returned, of n values, as used.
func (b *rowBlock) keep(n int) { b.buf = b.buf[n:] }

// row fills row, a row of t (prev its rows so far, pools its column
// pools), and reports whether it is usable.
func (g *generator) row(rng *rand.Rand, m mode, t *catalog.Table, pools []colPools, row []exec.Value, prev [][]exec.Value, db exec.Database) bool {
	for i := range t.Columns {
		c := &t.Columns[i]
		if c.Generated != "" {
			row[i] = exec.Null // computed once the row is drawn (see tableRules.complete)
			continue
		}
		row[i] = g.value(rng, m, c, &pools[i], i, prev)
		if g.rules.nonIntegers && pools[i].looseInt && !row[i].IsNull() && rng.Float64() < pNonInteger {
			row[i] = nonInteger(rng, row[i], g.nonIntegerLits())
		}
		if row[i].IsNull() && c.NotNull {
			return false
		}
	}
	// Untrusted foreign keys are still followed most of the time: joins
	// along them are what queries do, and matching rows are what make
	// results differ.
	if !g.trustFK && rng.IntN(5) == 0 {
		return true
	}
	for _, fk := range t.ForeignKeys {
		nullable := true
		for _, c := range fk.Columns {
			nullable = nullable && !t.Columns[c].NotNull
		}
		parents := db[fk.RefTable]
		ref := g.s.Table(fk.RefTable)
		if !g.trustFK && len(parents) == 0 {
			continue
		}
		if len(parents) == 0 || (nullable && !g.noNulls && rng.Float64() < m.pNull) {
			if !nullable || g.noNulls {
				return false
			}
			for _, c := range fk.Columns {
				row[c] = exec.Null
			}
			continue
		}
		p := parents[rng.IntN(len(parents))]
		for j, c := range fk.Columns {
			v, ok := convert(p[fk.RefColumns[j]], t.Columns[c], ref.Columns[fk.RefColumns[j]])
			if !ok {
				if !g.trustFK {
					continue
				}
				return false
			}
			row[c] = v
		}
	}
	return true
}

// value draws one column value: NULL, a duplicate of an earlier row, a
// literal of the queries (or its neighbour), a small base value, or a
// wider random one.
func (g *generator) value(rng *rand.Rand, m mode, c *catalog.Column, pools *colPools, i int, prev [][]exec.Value) exec.Value {
	if !executable(g.s.Dialect, c) {
		// A filler, where no plan evaluates the column (see opaque.go).
		if f := pools.filler; len(f) > 0 && (c.NotNull || g.noNulls || rng.Float64() >= m.pNull) {
			return f[rng.IntN(len(f))]
		}
		return exec.Null
	}
	if !c.NotNull && !g.noNulls && rng.Float64() < m.pNull {
		return exec.Null
	}
	if len(prev) > 0 && rng.Float64() < m.pDup {
		if v := prev[rng.IntN(len(prev))][i]; !v.IsNull() || !c.NotNull {
			return v
		}
	}
	if c.Enum != nil {
		return g.enumValue(rng, m, c, pools)
	}
	if ex := pools.exact; len(ex) > 0 && rng.Float64() < m.pLit/2 {
		return ex[rng.IntN(len(ex))]
	}
	if lits := pools.lits; len(lits) > 0 && rng.Float64() < m.pLit {
		return lits[rng.IntN(len(lits))]
	}
	if tl := pools.typeLits; len(tl) > 0 && rng.Float64() < m.pLit/3 {
		if v, ok := fitTo(c.Type, pools.spec, tl[rng.IntN(len(tl))]); ok {
			return v
		}
	}
	if rng.Float64() < m.pWide {
		if v, ok := fitTo(c.Type, pools.spec, wide(rng, c.Type)); ok {
			return v
		}
	}
	if pool := pools.base; len(pool) > 0 {
		return pool[rng.IntN(len(pool))]
	}
	return exec.Null
}
