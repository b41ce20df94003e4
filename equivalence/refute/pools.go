package refute

import (
	"math"
	"math/big"
	"math/rand/v2"
	"sync"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// basePool is the small value range every column draws from: small so
// that joins match and duplicates occur.
func basePool(t catalog.Type) []exec.Value { return basePools[t] }

// basePools are built once: parsing numerics for every drawn value was a
// quarter of the search's time. Values are never modified in place, so
// they can be shared.
var basePools = func() map[catalog.Type][]exec.Value {
	m := map[catalog.Type][]exec.Value{}
	for _, t := range []catalog.Type{catalog.Int, catalog.Numeric, catalog.Float, catalog.Text, catalog.Bool, catalog.Date, catalog.Timestamp, catalog.Interval, catalog.UUID, catalog.JSON} {
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
	case catalog.Interval:
		// No two equal under = but spelled apart ('1 mon' and '30 days'):
		// PostgreSQL keeps either where they group together.
		return []exec.Value{exec.Interval(0, 0, 0), exec.Interval(0, 1, 0), exec.Interval(0, 2, 0), exec.Interval(1, 0, 0), exec.Interval(0, 0, 3_600_000_000)}
	case catalog.UUID:
		return uuidPool[:3]
	case catalog.JSON:
		return jsonPool[:3]
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
	d   catalog.Dialect
}

const fittedBaseMax = 4096

func fittedBasePool(d catalog.Dialect, c catalog.Column) []exec.Value {
	k := baseKey{c.Type, c.TypeSQL, d}
	fittedBase.Lock()
	vs, ok := fittedBase.m[k]
	fittedBase.Unlock()
	if ok {
		return vs
	}
	vs = fitAll(d, c, basePool(c.Type))
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
	case catalog.Interval:
		// Whole days or whole hours: a day's worth of hours would equal
		// a day spelled apart.
		if rng.IntN(2) == 0 {
			return exec.Interval(0, int32(rng.IntN(36)-10), 0)
		}
		return exec.Interval(0, 0, int64(rng.IntN(23)+1)*3_600_000_000)
	case catalog.UUID:
		return uuidPool[rng.IntN(len(uuidPool))]
	case catalog.JSON:
		return jsonPool[rng.IntN(len(jsonPool))]
	}
	return exec.Null
}

// uuidPool are canonical uuids (the executor's form of a uuid) whose
// order is decided at different digits.
var uuidPool = []exec.Value{exec.Text("00000000-0000-0000-0000-000000000001"), exec.Text("00000000-0000-0000-0000-000000000002"),
	exec.Text("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), exec.Text("0000000f-0000-0000-0000-000000000000"),
	exec.Text("ffffffff-ffff-ffff-ffff-ffffffffffff")}

// jsonPool are jsonb documents of each kind.
var jsonPool = func() []exec.Value {
	var out []exec.Value
	for _, s := range []string{`{}`, `{"a": 1}`, `{"b": "x"}`, `[]`, `{"a": {"b": [1, "x"]}}`, `["a", 2]`, `"a"`, `null`} {
		if v, err := exec.ParseJSONB(s); err == nil {
			out = append(out, v)
		}
	}
	return out
}()

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
	// filler holds the values of a column of an unmodelled type that
	// no plan evaluates (see opaque.go); nil otherwise.
	filler []exec.Value
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
		ps[i] = colPools{exact: g.exact[k], lits: g.lits[k], base: fittedBasePool(g.s.Dialect, c), typeLits: g.typeLits[c.Type], spec: specIn(g.s.Dialect, c), looseInt: looseInteger(g.s.Dialect, t, i)}
		if g.rules.fills(t, i) {
			ps[i].filler = fillerValues(&t.Columns[i])
		}
	}
	g.pools[t.Name] = ps
	return ps
}
