package refute

import (
	"context"
	"math/big"
	"strconv"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// Seeds are the databases built from targets (targets.go): a database
// of the tier's generator with one table's rows replaced by copies of
// one of its rows, alike but for the keys (made distinct) and the
// target's column. A seed that breaks a declared constraint or an
// assumption of the tier is dropped, never repaired into something else:
// the search then goes on with the random databases.

// seedBases are the instances of the tier's generator seeds start from.
// Numbers 1 and 2 hold one row per table (see modeFor): replacing a
// table's rows with copies of its one row leaves no reference dangling,
// and the other tables stay small. The first base is number 1 with the
// queries' literals written in (literalBase): copies that all pass
// `commander = 'Kaloyan'` show what DISTINCT changes.
var seedBases = [...]int{1, 1, 2}

// literalBases marks the bases that get the literals.
var literalBases = [len(seedBases)]bool{true, false, false}

// maxSeeds bounds the seeds a search tries, and maxSeedBuilds the
// databases it builds for them (some break a constraint and are
// dropped): seeds stand in for random databases of the same search, not
// on top of them.
const (
	maxSeeds      = 32
	maxSeedBuilds = 96
)

// seedsFrom is the first database number of a tier that may be a seed:
// the first random databases (empty tables, one row each) show most
// differences, and cost least. From there seeds and random databases
// alternate, so that a difference random data shows quickly is found
// nearly as soon as without seeds.
const seedsFrom = 4

// seeder hands out a search's seed databases in order: each target on
// every base before the next target.
type seeder struct {
	g *generator
	// bg generates the bases: the typical tier's generator, whose
	// numbers 1 and 2 hold a row in every table (the wider tier's may
	// be empty databases); a typical database is one of every tier.
	bg      *generator
	seed    uint64
	ts      *targets
	bases   [len(seedBases)]exec.Database // built on first use
	next    int                           // the next (base, target) to build
	builds  int
	used    int // seeds handed out
	maxUsed int
	// reaches, when set, reports whether the reference runs on a
	// database without error and returns a row there; tries is shared
	// by a search's seeders: the try a tier's literal base reached on,
	// which the next tier's takes without running the plan again (-1:
	// not yet known).
	reaches func(exec.Database) bool
	tries   *int
}

// newSeeder returns the seeder of g's targets ts, on bases bg
// generates, handing out at most limit seeds; nil when there are none.
func newSeeder(g, bg *generator, seed uint64, ts *targets, limit int) *seeder {
	if ts == nil || len(ts.list) == 0 || limit <= 0 {
		return nil
	}
	return &seeder{g: g, bg: bg, seed: seed, ts: ts, maxUsed: min(limit, maxSeeds)}
}

// database returns the seed that is database number i of the tier (i
// counts every database the tier tried, in order), or nil when i is a
// random database's turn or no seed is left.
func (sd *seeder) database(i int) exec.Database {
	if sd == nil || i < seedsFrom || (i-seedsFrom)%2 != 0 {
		return nil
	}
	for sd.used < sd.maxUsed && sd.builds < maxSeedBuilds && sd.next < len(seedBases)*len(sd.ts.list) {
		bi, tg := sd.next%len(seedBases), sd.ts.list[sd.next/len(seedBases)]
		sd.next++
		if sd.bases[bi] == nil {
			sd.bases[bi] = sd.base(bi)
		}
		if len(sd.bases[bi]) == 0 {
			continue // a literal base that broke a row rule
		}
		sd.builds++
		if db := sd.g.seedDatabase(sd.bases[bi], tg, sd.ts.eq, sd.ts.used[tg.table], sd.ts.pinned[tg.table]); db != nil {
			sd.used++
			return db
		}
	}
	return nil
}

// literalTries bounds the one-row databases a literal base is written
// on until one reaches the reference's output (seeder.reaches).
const literalTries = 4

// base builds base bi. A literal base that the plans cannot run on, or
// on which the reference returns no row, is tried again on the next of
// literalTries generated databases: every seed copies its rows, and a
// base whose random values stop the join or the filters (or make the
// query divide by zero: l_discount = 1 in sum(l_extendedprice * (1 -
// l_discount))) leaves every target of the search unreached. The first
// try is the base as before; when no try reaches, it is kept.
func (sd *seeder) base(bi int) exec.Database {
	build := func(try int) exec.Database {
		b := sd.bg.instance(sd.seed+uint64(try), seedBases[bi])
		// A base outlives the search's next databases, and seeds
		// share its rows: its memory is never recycled.
		sd.bg.keep()
		if literalBases[bi] {
			b = sd.g.literalBase(b, sd.ts.eq)
		}
		return b
	}
	if !literalBases[bi] || sd.reaches == nil {
		return build(0)
	}
	if sd.tries != nil && *sd.tries >= 0 {
		return build(*sd.tries)
	}
	var first exec.Database
	for try := range literalTries {
		b := build(try)
		if try == 0 {
			first = b
		}
		if len(b) > 0 && sd.reaches(b) {
			if sd.tries != nil {
				*sd.tries = try
			}
			return b
		}
	}
	if sd.tries != nil {
		*sd.tries = 0
	}
	return first
}

// count is the number of seeds handed out so far.
func (sd *seeder) count() int {
	if sd == nil {
		return 0
	}
	return sd.used
}

// seedDatabase builds tg's database from base, or nil when it would
// break a constraint or an assumption of g's tier.
func (g *generator) seedDatabase(base exec.Database, tg target, eq []equiPair, used, pinned map[int]bool) exec.Database {
	t := g.s.Table(tg.table)
	if t == nil || g.empty[t.Name] || len(base[t.Name]) == 0 {
		return nil
	}
	if tg.rows == 0 && (g.trustFK || g.rules.nonEmpty) {
		return nil // an emptied parent: only for a tier that keeps orphans
	}
	if g.cannot != "" {
		return nil
	}
	r := base[t.Name][0]
	if tg.rows == 0 {
		db := make(exec.Database, len(base))
		for name, rs := range base {
			db[name] = rs
		}
		db[t.Name] = [][]exec.Value{}
		if g.rules.check(g.s, db) != "" {
			return nil
		}
		return db
	}
	distinct, ok := distinctColumns(t, tg, used, pinned)
	if !ok {
		return nil
	}
	tr := g.rowRules[t.Name]
	rows := make([][]exec.Value, tg.rows)
	block := make([]exec.Value, tg.rows*len(r))
	for j := range rows {
		row := block[j*len(r) : (j+1)*len(r) : (j+1)*len(r)]
		copy(row, r)
		if tg.vary >= 0 {
			v, ok := variant(&t.Columns[tg.vary], r[tg.vary], tg, j)
			if !ok {
				return nil
			}
			row[tg.vary] = v
		}
		if tg.alt > 0 {
			lits := g.exact[colKey{t.Name, tg.alt - 1}]
			if len(lits) < 2 {
				return nil
			}
			row[tg.alt-1] = lits[(j+int(tg.phase))%2]
		}
		for _, c := range distinct {
			v, ok := ladder(&t.Columns[c], r[c], j)
			if !ok {
				return nil
			}
			row[c] = v
		}
		if tr != nil {
			// Generated columns follow the values changed.
			if ok, err := tr.complete(context.Background(), row); !ok || err != nil {
				return nil
			}
		}
		rows[j] = row
	}
	// The other tables' row slices are copied: repairing references
	// below filters them in place.
	db := make(exec.Database, len(base))
	for name, rs := range base {
		db[name] = append([][]exec.Value(nil), rs...)
	}
	db[t.Name] = rows
	for _, e := range eq {
		g.match(db, t, r, e.a, e.b)
		g.match(db, t, r, e.b, e.a)
	}
	if g.trustFK {
		repairFKs(g.s, db)
	}
	if g.rules.check(g.s, db) != "" {
		return nil
	}
	return db
}

// match makes the rows of to's table hold, in to's column, the value of
// from's column in r, the row of t the seed copies: the copies then
// join the other table's rows (a join condition, an IN subquery).
func (g *generator) match(db exec.Database, t *catalog.Table, r []exec.Value, from, to colKey) {
	if from.table != t.Name || to.table == t.Name {
		return
	}
	other := g.s.Table(to.table)
	if other == nil || len(db[to.table]) == 0 {
		return
	}
	v, ok := convert(r[from.ord], other.Columns[to.ord], t.Columns[from.ord])
	if !ok || v.IsNull() {
		return
	}
	rows := db[to.table]
	for i, row := range rows {
		row = append([]exec.Value(nil), row...)
		row[to.ord] = v
		rows[i] = row
	}
}

// distinctColumns picks, for each key of t (primary key, UNIQUE) the
// copies would otherwise repeat, a column to give distinct values: one
// that no foreign key references from (a parent's key cannot be made
// up), not generated, and not the target's column unless its values are
// distinct already; among those, one the plans do not read (used) if
// there is one, else one they do not pin.
func distinctColumns(t *catalog.Table, tg target, used, pinned map[int]bool) ([]int, bool) {
	if tg.rows <= 1 {
		return nil, true
	}
	inFK := map[int]bool{}
	for _, fk := range t.ForeignKeys {
		for _, c := range fk.Columns {
			inFK[c] = true
		}
	}
	sets := t.Unique
	if len(t.PrimaryKey) > 0 {
		sets = append([][]int{t.PrimaryKey}, sets...)
	}
	var out []int
	chosen := map[int]bool{}
next:
	for _, set := range sets {
		for _, c := range set {
			if chosen[c] || (c == tg.vary && tg.how == varyLadder) {
				continue next
			}
		}
		pick := -1
		rank := func(c int) int { // lower is better
			switch {
			case !used[c]:
				return 0
			case !pinned[c]:
				return 1
			}
			return 2
		}
		for _, c := range set {
			if !inFK[c] && c != tg.vary && t.Columns[c].Generated == "" && (pick < 0 || rank(c) < rank(pick)) {
				pick = c
			}
		}
		if pick < 0 {
			return nil, false
		}
		out = append(out, pick)
		chosen[pick] = true
	}
	return out, true
}

// variant is copy j's value of the target's column c, v in the row
// copied.
func variant(c *catalog.Column, v exec.Value, tg target, j int) (exec.Value, bool) {
	switch tg.how {
	case varyLadder:
		return ladder(c, v, j)
	case varyHalves:
		return ladder(c, v, j/2)
	case varyFixed:
		return fit(*c, tg.value)
	}
	return v, true
}

// ladder is the j-th of distinct ascending values of column c starting
// at v (j = 0): v+j for numbers, days and seconds, v with j appended
// for text, the next enum labels, the other boolean.
func ladder(c *catalog.Column, v exec.Value, j int) (exec.Value, bool) {
	if j == 0 {
		return v, true
	}
	if c.Enum != nil {
		for i, l := range c.Enum {
			if l == v.S && v.K == exec.KText && i+j < len(c.Enum) {
				return exec.Text(c.Enum[i+j]), true
			}
		}
		return exec.Null, false
	}
	var out exec.Value
	switch v.K {
	case exec.KInt:
		out = exec.Int(v.I + int64(j))
	case exec.KNumeric:
		out = exec.NumericRat(new(big.Rat).Add(v.R, big.NewRat(int64(j), 1)), v.Scale)
	case exec.KFloat:
		out = exec.Float(v.F + float64(j))
	case exec.KDate:
		out = exec.Date(v.I + int64(j))
	case exec.KTimestamp:
		out = exec.Timestamp(v.I + int64(j)*1_000_000)
		out.B = v.B // an instant stays one
	case exec.KBool:
		if j != 1 {
			return exec.Null, false
		}
		out = exec.Bool(!v.B)
	case exec.KText:
		if w, ok := fit(*c, exec.Text(v.S+strconv.Itoa(j))); ok {
			return w, true
		}
		out = exec.Text(strconv.Itoa(j))
	default:
		return exec.Null, false
	}
	return fit(*c, out)
}

// literalBase is base with every column the queries compare with a
// literal holding the first such literal, in every row, and the columns
// the queries join with = matched (eq, in order found): the one-row
// tables then join and pass the queries' filters. It is an empty
// database when a generated column or row rule cannot follow. Keys and
// references may break: the seeds built on it are checked as any.
func (g *generator) literalBase(base exec.Database, eq []equiPair) exec.Database {
	out := make(exec.Database, len(base))
	for name, rows := range base {
		t := g.s.Table(name)
		if t == nil {
			out[name] = rows
			continue
		}
		var set []int
		for c := range t.Columns {
			if len(g.compared[colKey{t.Name, c}]) > 0 {
				set = append(set, c)
			}
		}
		if len(set) == 0 {
			out[name] = rows
			continue
		}
		copied := make([][]exec.Value, len(rows))
		for i, r := range rows {
			row := append([]exec.Value(nil), r...)
			for _, c := range set {
				row[c] = g.compared[colKey{t.Name, c}][0]
			}
			if tr := g.rowRules[t.Name]; tr != nil {
				if ok, err := tr.complete(context.Background(), row); !ok || err != nil {
					return exec.Database{}
				}
			}
			copied[i] = row
		}
		out[name] = copied
	}
	for _, e := range eq {
		ta, tb := g.s.Table(e.a.table), g.s.Table(e.b.table)
		if ta == nil || tb == nil || e.a.table == e.b.table || len(out[e.a.table]) == 0 {
			continue
		}
		g.match(out, ta, out[e.a.table][0], e.a, e.b)
		if tr := g.rowRules[tb.Name]; tr != nil {
			for _, row := range out[tb.Name] {
				if ok, err := tr.complete(context.Background(), row); !ok || err != nil {
					return exec.Database{}
				}
			}
		}
	}
	return out
}
