package refute

import (
	"context"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

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
}

// valuePools are what a generator draws values from. They depend on the
// schema and the queries' literals only, so the generators of one
// search's tiers share them (see newGenerators).
type valuePools struct {
	// lits holds, per column, the literals compared with it and their
	// neighbours; typeLits the literals of every query constant by type.
	lits     map[colKey][]exec.Value
	exact    map[colKey][]exec.Value
	typeLits map[catalog.Type][]exec.Value
	// pools holds each table's column pools (see columnPools).
	pools map[string][]colPools
}

func newValuePools(s *catalog.Schema, lits *literals) *valuePools {
	vp := &valuePools{lits: map[colKey][]exec.Value{}, exact: map[colKey][]exec.Value{},
		typeLits: map[catalog.Type][]exec.Value{}, pools: map[string][]colPools{}}
	if lits != nil {
		for k, vs := range lits.byCol {
			t := s.Table(k.table)
			if t == nil || k.ord >= len(t.Columns) {
				continue
			}
			vp.lits[k] = fitAll(t.Columns[k.ord], vs)
			vp.exact[k] = fitAll(t.Columns[k.ord], lits.exact[k])
		}
		for typ, vs := range lits.byType {
			vp.typeLits[typ] = vs
		}
	}
	return vp
}

// executable reports whether the executor holds values of column c in
// dialect d. PostgreSQL's timestamp without time zone is modelled, at
// its default precision only (a timestamp(0) column rounds what is
// stored); a timestamp with time zone depends on the session's TimeZone,
// and SQLite's date-time columns are left as they were (NULL only).
func executable(d catalog.Dialect, c catalog.Column) bool {
	switch c.Type {
	case catalog.Int, catalog.Numeric, catalog.Float, catalog.Text, catalog.Bool, catalog.Date:
		return true
	case catalog.Timestamp:
		t := strings.Join(strings.Fields(strings.ToLower(c.TypeSQL)), " ")
		return d == catalog.Postgres && (t == "timestamp" || t == "timestamp without time zone" || t == "timestamp(6)" || t == "timestamp(6) without time zone")
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
		gens[i] = g
	}
	return gens
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

// basePool is the small value range every column draws from: small so
// that joins match and duplicates occur.
func basePool(t catalog.Type) []exec.Value { return basePools[t] }

// basePools are built once: parsing numerics for every drawn value was a
// quarter of the search's time. Values are never modified in place, so
// they can be shared.
var basePools = func() map[catalog.Type][]exec.Value {
	m := map[catalog.Type][]exec.Value{}
	for _, t := range []catalog.Type{catalog.Int, catalog.Numeric, catalog.Float, catalog.Text, catalog.Bool, catalog.Date, catalog.Timestamp} {
		m[t] = newBasePool(t)
	}
	return m
}()

func newBasePool(t catalog.Type) []exec.Value {
	switch t {
	case catalog.Int:
		return []exec.Value{exec.Int(0), exec.Int(1), exec.Int(2), exec.Int(3), exec.Int(-1)}
	case catalog.Numeric:
		return []exec.Value{num("0"), num("1"), num("2"), num("3"), num("1.5"), num("-1")}
	case catalog.Float:
		return []exec.Value{exec.Float(0), exec.Float(1), exec.Float(2), exec.Float(1.5)}
	case catalog.Text:
		return []exec.Value{exec.Text("a"), exec.Text("b"), exec.Text("A"), exec.Text("")}
	case catalog.Bool:
		return []exec.Value{exec.Bool(true), exec.Bool(false)}
	case catalog.Date:
		return []exec.Value{exec.Date(0), exec.Date(1), exec.Date(18262)}
	case catalog.Timestamp:
		// Midnights that equal the date pool's days, and times of day
		// between them.
		const day = 86_400_000_000
		return []exec.Value{exec.Timestamp(0), exec.Timestamp(day), exec.Timestamp(18262 * day), exec.Timestamp(18262*day + 45_000_000_000)}
	}
	return nil
}

// fittedBase caches fitAll(c, basePool(c.Type)), which depends on the
// column's type and its spelling only; a search fitted the base pool of
// every column it generated. Bounded: past fittedBaseMax spellings,
// pools are fitted afresh.
var fittedBase struct {
	sync.Mutex
	m map[baseKey][]exec.Value
}

type baseKey struct {
	t   catalog.Type
	sql string
}

const fittedBaseMax = 4096

func fittedBasePool(c catalog.Column) []exec.Value {
	k := baseKey{c.Type, c.TypeSQL}
	fittedBase.Lock()
	vs, ok := fittedBase.m[k]
	fittedBase.Unlock()
	if ok {
		return vs
	}
	vs = fitAll(c, basePool(c.Type))
	fittedBase.Lock()
	if fittedBase.m == nil {
		fittedBase.m = map[baseKey][]exec.Value{}
	}
	if len(fittedBase.m) < fittedBaseMax {
		fittedBase.m[k] = vs
	}
	fittedBase.Unlock()
	return vs
}

func num(s string) exec.Value {
	v, err := exec.Numeric(s)
	if err != nil {
		return exec.Null
	}
	return v
}

// wide draws a value from a larger range, for the random part of the
// search.
func wide(rng *rand.Rand, t catalog.Type) exec.Value {
	switch t {
	case catalog.Int:
		return exec.Int(rng.Int64N(41) - 10)
	case catalog.Numeric:
		// ip.d, the draws of its text form, from a table built once:
		// parsing the text, and then building the rational, each took a
		// tenth of the generator's time.
		ip := rng.Int64N(401) - 100
		d := int64(rng.IntN(10))
		return wideNumerics()[(ip+100)*10+d]
	case catalog.Float:
		return exec.Float(float64(rng.Int64N(401)-100) / 4)
	case catalog.Text:
		// Up to three of wideLetters, from a table of every such string
		// (building each drawn string was an allocation per value).
		n := rng.IntN(4)
		i := 0
		for range n {
			i = i*len(wideLetters) + rng.IntN(len(wideLetters))
		}
		return wideTexts()[n][i]
	case catalog.Bool:
		return exec.Bool(rng.IntN(2) == 0)
	case catalog.Date:
		return exec.Date(rng.Int64N(20000))
	case catalog.Timestamp:
		// Whole days, hours or seconds, so that comparisons with dates
		// and date arithmetic meet both midnights and times of day.
		us := rng.Int64N(20000) * 86_400_000_000
		switch rng.IntN(3) {
		case 1:
			us += rng.Int64N(24) * 3_600_000_000
		case 2:
			us += rng.Int64N(86_400) * 1_000_000
		}
		return exec.Timestamp(us)
	}
	return exec.Null
}

const wideLetters = "abcABC xyz%_"

// wideTexts are the texts wide draws: by length n (0..3), every string
// of n wideLetters, at the index whose base-len(wideLetters) digits are
// the letters' positions.
var wideTexts = sync.OnceValue(func() [4][]exec.Value {
	var out [4][]exec.Value
	out[0] = []exec.Value{exec.Text("")}
	for n := 1; n < 4; n++ {
		for _, prev := range out[n-1] {
			for j := range len(wideLetters) {
				out[n] = append(out[n], exec.Text(prev.S+wideLetters[j:j+1]))
			}
		}
	}
	return out
})

// wideNumerics are the numerics wide draws, ip.d for ip in -100..300
// and d in 0..9 (negative ip: -ip.d), at index (ip+100)*10+d. Values
// are never modified in place, so they can be shared.
var wideNumerics = sync.OnceValue(func() []exec.Value {
	out := make([]exec.Value, 401*10)
	for ip := int64(-100); ip <= 300; ip++ {
		for d := int64(0); d < 10; d++ {
			n := ip*10 + d
			if ip < 0 {
				n = ip*10 - d
			}
			out[(ip+100)*10+d] = exec.NumericRat(big.NewRat(n, 10), 1)
		}
	}
	return out
})

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
	db := exec.Database{}
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
		if g.rules.mustHoldRows(g.s, t) {
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
		rows := rowBlock{buf: make([]exec.Value, n*len(t.Columns))}
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
	if !executable(g.s.Dialect, *c) {
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

// colPools are one column's value pools: the queries' literals compared
// with it exactly, those and their neighbours, and the base pool, each
// fitted to the column.
type colPools struct {
	exact, lits, base []exec.Value
	// typeLits are the queries' literals of the column's type (fitted
	// on use), spec its declared type.
	typeLits []exec.Value
	spec     typeSpec
	// looseInt: a SQLite INTEGER column that may hold non-integers
	// (catalog.Table.IntegerOnly is false).
	looseInt bool
}

// pNonInteger is the share of a loose INTEGER column's values that
// constraints.nonIntegers turns into non-integers.
const pNonInteger = 0.25

// nonInteger turns v, drawn for a SQLite INTEGER column, into a value
// such a column keeps as given: v ± 0.5 (stored as REAL) or a text that
// is no number (stored as TEXT). A text that reads as an integer, or a
// REAL with no fractional part, SQLite would store as an INTEGER, so
// neither is drawn.
func nonInteger(rng *rand.Rand, v exec.Value, lits []exec.Value) exec.Value {
	base := int64(0)
	if v.K == exec.KInt {
		base = v.I
	}
	if len(lits) > 0 && rng.IntN(3) == 0 {
		return lits[rng.IntN(len(lits))]
	}
	switch rng.IntN(4) {
	case 0, 1:
		return exec.Float(float64(base) + 0.5)
	case 2:
		return exec.Float(float64(base) - 0.5)
	}
	return nonIntegerTexts[rng.IntN(len(nonIntegerTexts))]
}

var nonIntegerTexts = []exec.Value{exec.Text("abc"), exec.Text("")}

// looseIntegerValue says v is a value SQLite stores as given in column
// ord of t, an INTEGER-affinity column it does not keep to integers: a
// REAL with a fraction or a text that does not read as a number (what
// nonInteger draws). Such a value is legal there, unlike in PostgreSQL.
func looseIntegerValue(s *catalog.Schema, t *catalog.Table, ord int, v exec.Value) bool {
	if s.Dialect != catalog.SQLite || t.Columns[ord].Type != catalog.Int || t.IntegerOnly(s.Dialect, ord) {
		return false
	}
	switch v.K {
	case exec.KFloat, exec.KNumeric:
		return true
	case exec.KText:
		for _, n := range nonIntegerTexts {
			if n.S == v.S {
				return true
			}
		}
	}
	return false
}

// nonIntegerLits are the queries' numeric and floating-point literals
// that are no integers (n = 5.5), which a loose INTEGER column may hold.
func (g *generator) nonIntegerLits() []exec.Value {
	if g.nonIntLits != nil {
		return *g.nonIntLits
	}
	var out []exec.Value
	defer func() { g.nonIntLits = &out }()
	for _, t := range []catalog.Type{catalog.Numeric, catalog.Float} {
		for _, v := range g.typeLits[t] {
			switch {
			case v.K == exec.KNumeric && v.R != nil && !v.R.IsInt():
				out = append(out, v)
			case v.K == exec.KFloat && v.F != math.Trunc(v.F) && !math.IsNaN(v.F) && !math.IsInf(v.F, 0):
				out = append(out, v)
			}
		}
	}
	return out
}

// looseInteger reports whether column i of t is a SQLite INTEGER column
// that may hold non-integers.
func looseInteger(d catalog.Dialect, t *catalog.Table, i int) bool {
	return d == catalog.SQLite && t.Columns[i].Type == catalog.Int && !t.IntegerOnly(d, i)
}

// columnPools returns t's pools by column, built on first use: looking
// three maps up by (table, column) for every generated value was a tenth
// of the generator's time.
func (g *generator) columnPools(t *catalog.Table) []colPools {
	if ps, ok := g.pools[t.Name]; ok {
		return ps
	}
	ps := make([]colPools, len(t.Columns))
	for i, c := range t.Columns {
		k := colKey{t.Name, i}
		ps[i] = colPools{exact: g.exact[k], lits: g.lits[k], base: fittedBasePool(c), typeLits: g.typeLits[c.Type], spec: specOf(c), looseInt: looseInteger(g.s.Dialect, t, i)}
	}
	g.pools[t.Name] = ps
	return ps
}

// convert carries a parent key value into a referencing column whose
// declared type may differ (Spider schemas reference numeric keys from
// text columns).
func convert(v exec.Value, to, from catalog.Column) (exec.Value, bool) {
	if v.IsNull() || to.Type == from.Type {
		return v, true
	}
	out, err := exec.Parse(to.Type, v.String())
	if err != nil {
		return exec.Null, false
	}
	return fit(to, out)
}

// sameValue is SQL equality of two non-NULL stored values, across the
// kinds a foreign key may join.
func sameValue(a, b exec.Value) bool {
	if a.IsNull() || b.IsNull() {
		return false
	}
	// The common kinds without exec.Compare's generality: this runs for
	// every key column of every generated row.
	switch {
	case a.K == exec.KInt && b.K == exec.KInt:
		return a.I == b.I
	case a.K == exec.KText && b.K == exec.KText:
		return a.S == b.S
	case a.K == exec.KNumeric && b.K == exec.KNumeric:
		return ratEqual(a.R, b.R)
	}
	if a.K == b.K || (isNum(a.K) && isNum(b.K)) {
		c, err := exec.Compare(a, b)
		return err == nil && c == 0
	}
	return a.String() == b.String()
}

// ratEqual is x.Cmp(y) == 0 without Cmp's allocations: rationals are
// kept normalized, so equal ones have equal numerators and denominators.
func ratEqual(x, y *big.Rat) bool {
	if x == y {
		return true
	}
	if x.Num().Cmp(y.Num()) != 0 {
		return false
	}
	if xi, yi := x.IsInt(), y.IsInt(); xi || yi {
		return xi == yi
	}
	return x.Denom().Cmp(y.Denom()) == 0
}

func isNum(k exec.Kind) bool { return k == exec.KInt || k == exec.KNumeric || k == exec.KFloat }

// keysHold reports whether row keeps the primary key and every UNIQUE
// constraint against rows (skipping index skip); a NULL in a unique set
// never conflicts.
func keysHold(t *catalog.Table, rows [][]exec.Value, row []exec.Value, skip int) bool {
	for _, c := range t.PrimaryKey {
		if row[c].IsNull() && t.Columns[c].NotNull {
			return false // (a SQLite rowid table's key may hold NULLs: see catalog.Keys)
		}
	}
	if t.PrimaryKey != nil && !setHolds(t, t.PrimaryKey, rows, row, skip) {
		return false
	}
	for _, set := range t.Unique {
		if !setHolds(t, set, rows, row, skip) {
			return false
		}
	}
	return true
}

// setHolds reports whether no row but rows[skip] equals row on set,
// each column compared under its collation (keyEqual).
func setHolds(t *catalog.Table, set []int, rows [][]exec.Value, row []exec.Value, skip int) bool {
	{
		for j, other := range rows {
			if j == skip {
				continue
			}
			same := true
			for _, c := range set {
				if !keyEqual(&t.Columns[c], row[c], other[c]) {
					same = false
					break
				}
			}
			if same {
				return false
			}
		}
	}
	return true
}

// fkHolds reports whether row's foreign key fk references an existing
// row (MATCH SIMPLE: a NULL in any referencing column satisfies it).
func fkHolds(db exec.Database, fk catalog.ForeignKey, row []exec.Value) bool {
	for _, c := range fk.Columns {
		if row[c].IsNull() {
			return true
		}
	}
	for _, p := range db[fk.RefTable] {
		match := true
		for j, c := range fk.Columns {
			if !sameValue(row[c], p[fk.RefColumns[j]]) {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// repairFKs restores referential integrity after rows were dropped or
// generated out of order (reference cycles): a dangling reference
// becomes NULL where its columns allow, else its row is dropped, until
// nothing changes. It reports whether it changed anything.
func repairFKs(s *catalog.Schema, db exec.Database) (repaired bool) {
	for changed := true; changed; {
		changed = false
		for _, t := range s.Tables {
			if t.IsView() {
				continue
			}
			rows := db[t.Name]
			kept := rows[:0]
			for _, row := range rows {
				ok := true
				for _, fk := range t.ForeignKeys {
					if fkHolds(db, fk, row) {
						continue
					}
					changed, repaired = true, true
					nullable := true
					for _, c := range fk.Columns {
						nullable = nullable && !t.Columns[c].NotNull
					}
					if !nullable {
						ok = false
						break
					}
					row = append([]exec.Value(nil), row...)
					for _, c := range fk.Columns {
						row[c] = exec.Null
					}
				}
				if ok {
					kept = append(kept, row)
				}
			}
			db[t.Name] = kept
		}
	}
	return repaired
}

// constraints are the facts every database of a search satisfies: the
// schema's declared constraints (foreign keys only when trusted) and the
// data assumptions of Options.
type constraints struct {
	trustFK, noNulls, nonEmpty bool
	// nonIntegers lets a SQLite INTEGER column that the engine does not
	// keep to integers (catalog.Table.IntegerOnly) hold what SQLite
	// stores there as given: a REAL such as 5.5, or a text that reads as
	// no number ('abc'). See nonInteger.
	nonIntegers bool
	// read limits nonEmpty to the tables the queries read (nil: all):
	// an unrelated empty table changes no result.
	read map[string]bool
}

// mustHoldRows reports whether nonEmpty applies to t.
func (k constraints) mustHoldRows(s *catalog.Schema, t *catalog.Table) bool {
	return k.nonEmpty && (k.read == nil || k.read[t.Name]) && !k.cannotHoldRows(s, t)
}

// cannotHoldRows reports whether no row of t can be generated: a column
// of a type the executor does not model can only be NULL, which a NOT
// NULL column forbids. (noNulls leaves such columns NULL: they are not
// values the search chooses.) Nor can a partitioned table (its rows are
// its partitions'), a table with a CHECK no row satisfies, one whose
// rules are not modelled, or one with a NOT NULL enum of no labels.
func (k constraints) cannotHoldRows(s *catalog.Schema, t *catalog.Table) bool {
	for _, c := range t.Columns {
		if !executable(s.Dialect, c) && c.NotNull && c.Generated == "" {
			return true
		}
		if c.Enum != nil && len(c.Enum) == 0 && c.NotNull {
			return true
		}
	}
	if r := rulesFor(s, t); r != nil && (r.partitioned || r.alwaysEmpty || r.err != nil) {
		return true
	}
	return false
}

// validate reports the first declared constraint db violates, or "" when
// it satisfies them all (foreign keys only when trusted).
func validate(s *catalog.Schema, db exec.Database, trustFK bool) string {
	return constraints{trustFK: trustFK}.check(s, db)
}

// check reports the first constraint db violates, or "" when it
// satisfies them all. A table that can never hold a row (see
// generator.empty) is exempt from nonEmpty.
func (k constraints) check(s *catalog.Schema, db exec.Database) string {
	trustFK := k.trustFK
	for _, t := range s.Tables {
		if t.IsView() {
			continue
		}
		rows := db[t.Name]
		if len(rows) == 0 && k.mustHoldRows(s, t) {
			return t.Name + " is empty"
		}
		if len(rows) == 0 {
			continue
		}
		// The declared types, read once for all rows (on the stack for
		// tables of up to 32 columns).
		var buf [32]typeSpec
		specs := buf[:0]
		for _, c := range t.Columns {
			specs = append(specs, specOf(c))
		}
		for j, row := range rows {
			for i, c := range t.Columns {
				if row[i].IsNull() {
					// A generated column's NULL is computed, not chosen.
					if c.NotNull || (k.noNulls && executable(s.Dialect, c) && c.Generated == "") {
						return t.Name + "." + c.Name + " is NULL"
					}
					continue
				}
				if looseIntegerValue(s, t, i, row[i]) {
					continue // SQLite keeps 5.5 or 'abc' in an ordinary INTEGER column as given
				}
				if _, ok := fitTo(c.Type, specs[i], row[i]); !ok {
					return t.Name + "." + c.Name + " does not fit " + c.TypeSQL
				}
			}
			if !keysHold(t, rows, row, j) {
				return t.Name + ": duplicate key"
			}
			if trustFK {
				for _, fk := range t.ForeignKeys {
					if !fkHolds(db, fk, row) {
						return t.Name + ": dangling reference to " + fk.RefTable
					}
				}
			}
		}
		if r := rulesFor(s, t); r != nil {
			if msg := r.validate(context.Background(), rows); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// assumptionBroken reports the first of the tier's assumptions (noNulls,
// nonEmpty) db breaks, or "". It is check without the declared
// constraints, which the generator keeps by construction and every
// reported counterexample is validated against again (legalCounterexample):
// the search asks it of every typical database, where the full check was
// a tenth of the generator's time.
func (k constraints) assumptionBroken(s *catalog.Schema, db exec.Database) string {
	for _, t := range s.Tables {
		if t.IsView() {
			continue
		}
		rows := db[t.Name]
		if len(rows) == 0 {
			if k.mustHoldRows(s, t) {
				return t.Name + " is empty"
			}
			continue
		}
		if !k.noNulls {
			continue
		}
		for i, c := range t.Columns {
			if !executable(s.Dialect, c) || c.Generated != "" {
				continue
			}
			for _, row := range rows {
				if row[i].IsNull() {
					return t.Name + "." + c.Name + " is NULL"
				}
			}
		}
	}
	return ""
}

// fit adapts v to the column's declared width: char(n) values get exactly
// n characters (the executor does not model blank padding), varchar(n)
// values must fit, numeric(p,s) values must fit without rounding, and
// smallint/integer values their range. ok is false when v cannot be
// stored as is.
func fit(c catalog.Column, v exec.Value) (exec.Value, bool) {
	return fitTo(c.Type, specOf(c), v)
}

// typeSpec is a declared type as fit reads it: base name (in its own
// case) and arguments.
type typeSpec struct {
	base    string
	p, s    int
	hasArgs bool
}

// specOf reads c's declared type without lowering its case: fit runs
// for every generated and checked value, and a lowered copy was an
// allocation each time.
func specOf(c catalog.Column) typeSpec {
	base, args, hasArgs := strings.Cut(strings.TrimSpace(c.TypeSQL), "(")
	sp := typeSpec{base: strings.TrimSpace(base), hasArgs: hasArgs}
	if hasArgs {
		a, b, _ := strings.Cut(strings.TrimSuffix(strings.TrimSpace(args), ")"), ",")
		sp.p, _ = strconv.Atoi(strings.TrimSpace(a))
		sp.s, _ = strconv.Atoi(strings.TrimSpace(b))
	}
	return sp
}

// fitTo is fit for a column of type t declared as sp.
func fitTo(t catalog.Type, sp typeSpec, v exec.Value) (exec.Value, bool) {
	if v.IsNull() {
		return v, true
	}
	if v.K != kindOf(t) {
		out, err := exec.Parse(t, v.String())
		if err != nil {
			return exec.Null, false
		}
		v = out
	}
	base, p, s, hasArgs := sp.base, sp.p, sp.s, sp.hasArgs
	switch v.K {
	case exec.KInt:
		lim := int64(1<<63 - 1)
		switch {
		case isAny(base, "smallint", "int2"):
			lim = 32767
		case isAny(base, "integer", "int", "int4", "serial"):
			lim = 1<<31 - 1
		}
		if v.I > lim || v.I < -lim-1 {
			return exec.Null, false
		}
	case exec.KText:
		if !hasArgs || p <= 0 {
			break
		}
		switch {
		case isAny(base, "char", "character", "bpchar", "nchar"):
			// At most n characters, the last not a blank: the executor
			// pads (see bpchar.go), and a value's own trailing blanks
			// would only repeat the padding.
			if utf8.RuneCountInString(v.S) <= p && !strings.HasSuffix(v.S, " ") {
				break
			}
			return exec.Null, false
		default:
			if len(v.S) > p {
				return exec.Null, false
			}
		}
	case exec.KFloat:
		// PostgreSQL's real (float4) holds single precision: 0.1 stored
		// there is 0.100000001490116, so r = 0.1 is false and
		// r = 0.1::real true. The executor models real values
		// (exec.Float4: rounded, compared in float8 beside anything but
		// another real), so a literal reaches the column rounded.
		// float4 is how the postgres DDL loader spells real; SQLite's
		// REAL is double precision. (The executor rounds a postgres
		// column spelled real as it reads it.)
		if isAny(base, "float4") {
			f := float32(v.F)
			if math.IsInf(float64(f), 0) && !math.IsInf(v.F, 0) {
				return exec.Null, false
			}
			v = exec.Float4(f)
		} else if v.IsFloat4() {
			v = exec.Float(v.F) // a double precision column holds it widened
		}
	case exec.KNumeric:
		if !hasArgs || p <= 0 {
			break
		}
		str := strings.TrimPrefix(v.String(), "-")
		ip, frac, _ := strings.Cut(str, ".")
		frac = strings.TrimRight(frac, "0")
		if len(frac) > s || len(strings.TrimLeft(ip, "0")) > p-s {
			return exec.Null, false
		}
	}
	return v, true
}

// isAny reports whether name, lowered, is one of names (lower-case
// ASCII): strings.ToLower(name) == n without building the lowered copy.
func isAny(name string, names ...string) bool {
	for _, n := range names {
		if len(name) != len(n) {
			continue
		}
		same := true
		for i := 0; i < len(n) && same; i++ {
			c := name[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			same = c == n[i]
		}
		if same {
			return true
		}
	}
	return false
}

// kindOf is the value kind a column of type t holds.
func kindOf(t catalog.Type) exec.Kind {
	switch t {
	case catalog.Int:
		return exec.KInt
	case catalog.Numeric:
		return exec.KNumeric
	case catalog.Float:
		return exec.KFloat
	case catalog.Text:
		return exec.KText
	case catalog.Bool:
		return exec.KBool
	case catalog.Date:
		return exec.KDate
	case catalog.Timestamp:
		return exec.KTimestamp
	}
	return exec.KNull
}

// fitAll keeps the values that fit the column, padding text for
// char(n) so that literals still reach fixed-width columns.
func fitAll(c catalog.Column, vs []exec.Value) []exec.Value {
	var out []exec.Value
	seen := map[string]bool{}
	add := func(f exec.Value) {
		if !seen[f.Key()+"|"+f.String()] {
			seen[f.Key()+"|"+f.String()] = true
			out = append(out, f)
		}
	}
	_, char := charWidthOf(c)
	for _, v := range vs {
		f, ok := fit(c, v)
		if !ok && v.K == exec.KText {
			f, ok = fit(c, exec.Text(padTo(c, v.S)))
		}
		if ok {
			add(f)
		}
		if char && v.K == exec.KText {
			// Also the full-width spelling: plans that fold a string
			// cast execute only on unpadded char(n) values.
			if f, ok := fit(c, exec.Text(padTo(c, v.S))); ok {
				add(f)
			}
		}
	}
	return out
}

func padTo(c catalog.Column, s string) string {
	t := strings.ToLower(c.TypeSQL)
	_, args, ok := strings.Cut(t, "(")
	if !ok {
		return s
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.Split(args, ",")[0], ")")))
	if err != nil || n <= 0 {
		return s
	}
	// No trailing blank (see bpchar.go): pad with x, also where cutting
	// to n characters leaves one at the end. The length is in characters,
	// as the engine counts it, and a cut never splits one (a split UTF-8
	// sequence is a value PostgreSQL refuses).
	r := []rune(strings.TrimRight(s, " "))
	if len(r) > n {
		r = []rune(strings.TrimRight(string(r[:n]), " "))
	}
	return string(r) + strings.Repeat("x", n-len(r))
}

// keyEqual is sameValue under column c's collation, as the engine checks
// a key: SQLite's NOCASE folds ASCII case and RTRIM ignores trailing
// spaces; a nondeterministic PostgreSQL collation (ICU, not modelled)
// is read as at least case- and trailing-space-insensitive, so that a
// generated database holds no two keys such a collation may equate
// (accent-insensitive collations are beyond this).
func keyEqual(c *catalog.Column, a, b exec.Value) bool {
	if sameValue(a, b) {
		return true
	}
	if !c.LooseCollation() || a.K != exec.KText || b.K != exec.KText {
		return false
	}
	x, y := strings.TrimRight(a.S, " "), strings.TrimRight(b.S, " ")
	switch strings.ToLower(strings.Trim(c.Collation, `"`)) {
	case "rtrim":
		return x == y
	case "nocase":
		return asciiFold(a.S) == asciiFold(b.S)
	}
	return strings.EqualFold(x, y)
}

func asciiFold(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
