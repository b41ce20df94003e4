package exec_test

import (
	"context"
	"fmt"
	"math/rand"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// A deliberately simple instance generator for the differential test
// (the real one, guided by the queries, lives elsewhere): 0–4 rows per
// table from small value pools so that joins match, duplicates and NULLs
// occur, and declared keys and foreign keys hold.
var pools = map[catalog.Type][]string{
	catalog.Int:     {"-1", "0", "1", "2", "3", "4", "5", "6", "7", "10", "11"},
	catalog.Numeric: {"0", "1.5", "2.50", "10", "19.99", "20", "20.00", "25.125"},
	catalog.Float:   {"0", "1.5", "2.25", "20"},
	catalog.Text:    {"a", "B", "Re", "re", "Rex", "Paris", "paris", "Oslo", "Husky", "BUL", "HUS", "B%x", "", "Bob"},
	catalog.Bool:    {"true", "false"},
	catalog.Date:    {"2020-01-01", "2019-12-31", "2021-06-15", "2000-02-29"},
	// Month ends, a leap day, times of day and fractions of a second.
	catalog.Timestamp: {"2020-01-01 00:00:00", "2020-01-31 12:30:00", "2020-02-29 23:59:59.5", "2019-12-31 00:00:00.000001", "2021-03-31 06:00:00"},
}

// litePools replace pools for SQLite schemas, whose dates and
// timestamps are text and whose text columns may hold numeric-looking
// strings (compared with numbers under SQLite's affinity rules).
var litePools = map[catalog.Type][]string{
	catalog.Text:      {"a", "B", "Re", "re", "Rex", "Paris", "paris", "B%x", "a\\b", "", "Bob", "1", "10", "2.5"},
	catalog.Timestamp: {"2020-01-01 00:00:00", "2019-12-31 23:59:59", "2021-06-15 12:30:00", "2020-01-01"},
	catalog.Date:      {"2020-01-01", "2019-12-31", "2021-06-15"},
}

// rowsText keeps the generated rows as literal text per table for
// loading into PostgreSQL; nil is NULL.
type instance struct {
	order []*catalog.Table
	text  map[string][][]*string
}

var lastInstance instance

// typmods maps a column name to its declared type with width, read from
// the DDL text because the catalog keeps only the type family.
var typmods = map[string]string{}

var typmodRE = regexp.MustCompile(`(?im)^\s*"?(\w+)"?\s+((?:character varying|\w+)\s*\(\s*\d+\s*(?:,\s*\d+\s*)?\))`)

func readTypmods(ddl string) {
	for _, m := range typmodRE.FindAllStringSubmatch(ddl, -1) {
		typmods[strings.ToLower(m[1])] = strings.ReplaceAll(m[2], " ", "")
	}
}

func tableOrder(s *catalog.Schema) []*catalog.Table {
	var order []*catalog.Table
	done := map[string]bool{}
	var visit func(t *catalog.Table, depth int)
	visit = func(t *catalog.Table, depth int) {
		if done[t.Name] || depth > len(s.Tables) {
			return
		}
		for _, fk := range t.ForeignKeys {
			if p := s.Table(fk.RefTable); p != nil && p != t {
				visit(p, depth+1)
			}
		}
		if !done[t.Name] {
			done[t.Name] = true
			order = append(order, t)
		}
	}
	for _, t := range s.Tables {
		if !t.IsView() {
			visit(t, 0)
		}
	}
	return order
}

func generate(rng *rand.Rand, s *catalog.Schema, inst int) exec.Database {
	return generateWith(rng, s, inst, nil)
}

// generateWith is generate drawing half of the values from extra (per
// type; the queries' literals) where extra has values for a column's type.
func generateWith(rng *rand.Rand, s *catalog.Schema, inst int, extra map[catalog.Type][]string) exec.Database {
	order := tableOrder(s)
	text := map[string][][]*string{}
	db := exec.Database{}
	for _, t := range order {
		n := rng.Intn(5)
		if inst%5 == 0 {
			n = rng.Intn(2) // some nearly empty databases
		}
		var rows [][]*string
		for r := 0; r < n; r++ {
			for try := 0; try < 10; try++ {
				row, ok := genRow(rng, s, t, text, extra)
				if ok && keysHold(t, rows, row) {
					rows = append(rows, row)
					break
				}
			}
		}
		text[t.Name] = rows
		for _, row := range rows {
			vals := make([]exec.Value, len(row))
			for i, v := range row {
				if v != nil {
					parse := exec.Parse
					if s.Dialect == catalog.SQLite {
						parse = exec.ParseSQLite
					}
					pv, err := parse(t.Columns[i].Type, *v)
					if err != nil {
						panic(fmt.Sprintf("generator produced bad %s value %q: %v", t.Columns[i].Type, *v, err))
					}
					vals[i] = pv
				}
			}
			db[t.Name] = append(db[t.Name], vals)
		}
		if db[t.Name] == nil {
			db[t.Name] = [][]exec.Value{}
		}
	}
	lastInstance = instance{order: order, text: text}
	return db
}

func genRow(rng *rand.Rand, s *catalog.Schema, t *catalog.Table, text map[string][][]*string, extra map[catalog.Type][]string) ([]*string, bool) {
	row := make([]*string, len(t.Columns))
	for i, c := range t.Columns {
		if !c.NotNull && rng.Intn(5) == 0 {
			continue
		}
		pool := pools[c.Type]
		if s.Dialect == catalog.SQLite && litePools[c.Type] != nil {
			pool = litePools[c.Type]
		}
		if ex := extra[c.Type]; len(ex) > 0 && rng.Intn(2) == 0 {
			pool = ex
		}
		if pool == nil {
			if c.NotNull {
				return nil, false
			}
			continue
		}
		v := fit(typmods[strings.ToLower(c.Name)], pool[rng.Intn(len(pool))])
		row[i] = &v
	}
	for _, fk := range t.ForeignKeys {
		nullable := true
		for _, c := range fk.Columns {
			nullable = nullable && !t.Columns[c].NotNull
		}
		parents := text[fk.RefTable]
		if s.Table(fk.RefTable) == t {
			nullable = true
			parents = nil
		}
		if len(parents) == 0 || (nullable && rng.Intn(6) == 0) {
			if !nullable {
				return nil, false
			}
			for _, c := range fk.Columns {
				row[c] = nil
			}
			continue
		}
		p := parents[rng.Intn(len(parents))]
		for i, c := range fk.Columns {
			row[c] = p[fk.RefColumns[i]]
		}
	}
	for _, c := range t.PrimaryKey {
		if row[c] == nil {
			return nil, false
		}
	}
	return row, true
}

// keysHold reports whether row keeps the primary key and every UNIQUE
// constraint (rows with a NULL in a unique set never conflict).
func keysHold(t *catalog.Table, rows [][]*string, row []*string) bool {
	sets := append([][]int{}, t.Unique...)
	if t.PrimaryKey != nil {
		sets = append(sets, t.PrimaryKey)
	}
	for _, set := range sets {
		for _, other := range rows {
			same := true
			for _, c := range set {
				if row[c] == nil || other[c] == nil || !sameValue(t.Columns[c].Type, *row[c], *other[c]) {
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

func sameValue(t catalog.Type, a, b string) bool {
	va, err1 := exec.Parse(t, a)
	vb, err2 := exec.Parse(t, b)
	if err1 != nil || err2 != nil {
		return a == b
	}
	c, err := exec.Compare(va, vb)
	return err == nil && c == 0
}

// load replaces the tables' contents in PostgreSQL with the last
// generated instance.
func load(ctx context.Context, conn *pgx.Conn, s *catalog.Schema, _ exec.Database) error {
	inst := lastInstance
	var names []string
	for _, t := range inst.order {
		names = append(names, quoteIdent(t.Name))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "TRUNCATE %s CASCADE;\n", strings.Join(names, ", "))
	for _, t := range inst.order {
		for _, row := range inst.text[t.Name] {
			vals := make([]string, len(row))
			for i, v := range row {
				if v == nil {
					vals[i] = "NULL"
				} else {
					vals[i] = "'" + strings.ReplaceAll(*v, "'", "''") + "'"
				}
			}
			fmt.Fprintf(&b, "INSERT INTO %s VALUES (%s);\n", quoteIdent(t.Name), strings.Join(vals, ", "))
		}
	}
	_, err := conn.Exec(ctx, b.String())
	return err
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// fit adapts a pool value to a declared width: char(n) values are cut to
// n characters without trailing blanks, varchar(n)
// values are cut to n, and numeric(p,s) values that would be rounded or
// overflow become 0.
func fit(typeSQL, v string) string {
	t := strings.ToLower(typeSQL)
	open := strings.IndexByte(t, '(')
	if open < 0 {
		return v
	}
	var p, sc int
	args := strings.TrimSuffix(t[open+1:], ")")
	if n, _ := fmt.Sscanf(args, "%d,%d", &p, &sc); n == 0 {
		return v
	}
	base := strings.TrimSpace(strings.ReplaceAll(t[:open], "charactervarying", "varchar"))
	switch base {
	case "char", "character", "bpchar":
		// At most n characters; PostgreSQL pads them (see bpchar.go).
		if len(v) > p {
			v = v[:p]
		}
		return strings.TrimRight(v, " ")
	case "varchar", "character varying":
		if len(v) > p {
			return v[:p]
		}
		return v
	case "numeric", "decimal":
		intPart, frac, _ := strings.Cut(strings.TrimPrefix(v, "-"), ".")
		if len(frac) > sc || len(strings.TrimLeft(intPart, "0")) > p-sc {
			return "0"
		}
	}
	return v
}
