package campaign

import (
	"context"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// The independent row generator: it knows nothing of the product. It
// draws values per column from small pools of the values that tell types
// apart (0.1 in a real column, 'ab ' in a char(3), '24 hours' next to
// '1 day', a timestamptz with an offset, 'A' beside 'a', 5.5 and '5' in
// a SQLite INTEGER column), the queries' own literals and the values
// already stored (so that joins and foreign keys meet), and inserts one
// row at a time through the real DDL: a row the engine refuses is simply
// dropped. What remains is a database the engine accepted.

var pools = map[category][]string{
	catInt:       {"0", "1", "2", "3", "5", "-1", "10", "99", "100", "2147483647"},
	catSmallint:  {"0", "1", "2", "3", "5", "-1", "10", "99", "32767", "-32768"},
	catNumeric:   {"0", "1", "1.5", "2.25", "0.1", "1.0", "1.00", "-0.5", "99.99", "10", "0.005", "3"},
	catReal:      {"0", "0.1", "1.5", "-0", "0.5", "3.3", "1e10", "16777217", "'NaN'", "2"},
	catFloat8:    {"0", "0.1", "1.5", "-0", "0.5", "3.3", "0.30000000000000004", "'NaN'", "2", "1e16"},
	catText:      {"'a'", "'A'", "'ab'", "'AB'", "'ab '", "'abc'", "'ABC'", "'b'", "''", "'v1'", "'é'", "'x y'", "'new'", "'paid'"},
	catBpchar:    {"'a'", "'A'", "'ab'", "'ab '", "'abc'", "'ABC'", "'b'", "''", "'xy'"},
	catBool:      {"true", "false"},
	catDate:      {"'2020-01-01'", "'2020-01-02'", "'2019-12-31'", "'2020-02-29'", "'2020-03-01'"},
	catTimestamp: {"'2020-01-01 00:00'", "'2020-01-01 10:00'", "'2020-01-02 00:00'", "'2019-12-31 23:59:59.5'", "'2020-01-01 07:00'"},
	catTstz:      {"'2020-01-01 10:00+03'", "'2020-01-01 07:00+00'", "'2020-01-01 00:00-05'", "'2020-01-02 00:00+00'", "'2019-12-31 23:00+00'"},
	catInterval:  {"'1 day'", "'24 hours'", "'1 mon'", "'30 days'", "'00:00:00'", "'1 day 01:00:00'", "'-1 day'", "'720 hours'"},
	catJSON:      {`'{"a":1}'`, `'{"a": 1}'`, `'{"b":2,"a":1}'`, `'[1,2]'`, `'null'`, `'1'`, `'{"a":1,"a":2}'`},
	catJSONB:     {`'{"a":1}'`, `'{"a": 1}'`, `'{"b":2,"a":1}'`, `'[1,2]'`, `'null'`, `'1'`},
	catAny:       {"1", "1.0", "'1'", "'a'", "5.5", "x'01'"},
}

// sqlitePools add, for SQLite, values of other storage classes that the
// column's affinity keeps as they are.
var sqlitePools = map[category][]string{
	catInt:     {"5.5", "'5'", "'x'", "1.0", "-0.0"},
	catText:    {"5", "1.5", "'5'"},
	catNumeric: {"'1.50'", "'x'", "1.0"},
	catFloat8:  {"'x'", "1"},
	catBool:    {"0", "1", "2", "'t'"},
}

var literalRE = regexp.MustCompile(`'(?:[^']|'')*'|\b\d+(?:\.\d+)?\b`)

// queryLiterals are the numbers and strings written in the queries.
func queryLiterals(qs ...string) (nums, strs []string) {
	for _, q := range qs {
		for _, l := range literalRE.FindAllString(q, -1) {
			if strings.HasPrefix(l, "'") {
				strs = append(strs, l)
			} else {
				nums = append(nums, l)
				if n, err := strconv.Atoi(l); err == nil {
					nums = append(nums, strconv.Itoa(n+1), strconv.Itoa(n-1), l+".5")
				}
			}
		}
	}
	return nums, strs
}

// fillRandom inserts random rows into every table of m on e (in a state
// begun by the caller) and returns the number of rows the engine took.
func fillRandom(ctx context.Context, e engine, m *meta, r *rand.Rand, queries ...string) (int, error) {
	nums, strs := queryLiterals(queries...)
	sqlite := e.dialect() == catalog.SQLite
	stored := map[category][]string{}
	took := 0
	maxRows := 1 + r.IntN(6)
	for _, t := range m.insertOrder() {
		if t.partitioned && r.IntN(2) == 0 {
			// half the time the rows go in through the partitions
			continue
		}
		n := r.IntN(maxRows + 1)
		cols := t.writable()
		names := make([]string, len(cols))
		for i, c := range cols {
			names[i] = pgIdent(c.name)
		}
		for k := 0; k < n*2 && k < 16; k++ { // some rows will be refused
			vals := make([]string, len(cols))
			for i, c := range cols {
				vals[i] = drawValue(r, c, sqlite, nums, strs, stored)
			}
			err := e.exec(ctx, "INSERT INTO "+pgIdent(t.name)+" ("+strings.Join(names, ", ")+") VALUES ("+strings.Join(vals, ", ")+")")
			if ctx.Err() != nil {
				return took, ctx.Err()
			}
			if err != nil {
				continue
			}
			took++
			for i, c := range cols {
				if vals[i] != "NULL" {
					stored[c.cat] = append(stored[c.cat], vals[i])
				}
			}
			if took >= 40 {
				return took, nil
			}
		}
	}
	return took, nil
}

func drawValue(r *rand.Rand, c mcol, sqlite bool, nums, strs []string, stored map[category][]string) string {
	if !c.notNull && r.IntN(7) == 0 || c.notNull && r.IntN(40) == 0 {
		return "NULL"
	}
	if ps := typedPools[c.sqlType]; len(ps) > 0 && !sqlite {
		// uuid, bytea, inet, ranges, times: text would be refused
		return ps[r.IntN(len(ps))]
	}
	switch p := r.IntN(10); {
	case p < 3 && len(stored[c.cat]) > 0:
		return stored[c.cat][r.IntN(len(stored[c.cat]))]
	case p < 5 && c.cat.numeric() && len(nums) > 0:
		return nums[r.IntN(len(nums))]
	case p < 5 && (c.cat.textual() || c.cat == catAny) && len(strs) > 0:
		return strs[r.IntN(len(strs))]
	case p == 5 && sqlite && len(sqlitePools[c.cat]) > 0:
		ps := sqlitePools[c.cat]
		return ps[r.IntN(len(ps))]
	}
	if c.cat == catEnum && len(c.enum) > 0 {
		return "'" + c.enum[r.IntN(len(c.enum))] + "'"
	}
	ps := pools[c.cat]
	if len(ps) == 0 {
		return "NULL"
	}
	return ps[r.IntN(len(ps))]
}
