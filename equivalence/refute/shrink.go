package refute

import (
	"context"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// maxShrinkRuns bounds the executions of one minimization besides its
// time budget, so that its cost does not depend on how busy the machine
// is: on the shared Spider pairs, 60 give the same counterexamples as 100.
const maxShrinkRuns = 60

// shrink minimizes a database on which the plans differ: first it drops
// rows one at a time (with the rows that reference them, when foreign
// keys are trusted) while the difference persists, then it simplifies
// values toward NULL and small constants. Every accepted step keeps the
// declared constraints, so the result is still a valid counterexample.
// It stops when ctx is done and returns the smallest database found.
func shrink(ctx context.Context, s *catalog.Schema, c *comparer, db exec.Database, out outcome, rules constraints) (exec.Database, outcome) {
	order := tableOrder(s)
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	runs := 0
	try := func(cand exec.Database) bool {
		regenerate(s, cand)
		if rules.check(s, cand) != "" {
			return false
		}
		if runs++; runs > maxShrinkRuns {
			stop()
			return false
		}
		o, err := c.run(ctx, cand)
		if err != nil || o.kind != out.kind {
			return false
		}
		db, out = cand, o
		return true
	}
	// A candidate that changes only values no plan reads has db's
	// outcome: it is counted and checked like any other, but not run
	// (simplifying the columns a query ignores was most of the runs).
	var dead map[string][]bool
	if skipDeadColumns {
		dead = deadColumns(c.ref, c.cand)
	}
	tryCell := func(t string, col int, cand exec.Database) bool {
		// A dead column may feed a generated one that is read.
		if d := dead[t]; col >= len(d) || !d[col] || hasGenerated(s.Table(t)) {
			return try(cand)
		}
		if rules.check(s, cand) != "" {
			return false
		}
		if runs++; runs > maxShrinkRuns {
			stop()
			return false
		}
		if ctx.Err() != nil {
			return false // as a run would have failed
		}
		db = cand
		return true
	}
	// Simplifying values can free rows to drop (a reference set to NULL),
	// so the two phases alternate until neither changes anything.
	// Whole tables and whole columns first: a counterexample usually
	// needs a few rows of one or two tables and a few values, and trying
	// rows and cells one at a time costs an execution each.
	simp := simplerValues(order, rules.noNulls)
	dropTables(ctx, order, db, try, s, rules.trustFK)
	simplifyColumns(ctx, order, db, tryCell, simp)
	for progress := true; progress && ctx.Err() == nil; {
		progress = dropRows(ctx, order, db, try, s, rules.trustFK) || simplify(ctx, order, db, tryCell, simp)
	}
	return db, out
}

// simplerValues is simpler for every column of tables, by table name
// and column ordinal: the simplification phases ask for each cell.
func simplerValues(tables []*catalog.Table, noNulls bool) map[string][][]exec.Value {
	out := make(map[string][][]exec.Value, len(tables))
	for _, t := range tables {
		vs := make([][]exec.Value, len(t.Columns))
		for i, c := range t.Columns {
			if c.Generated == "" { // computed, never chosen
				vs[i] = simpler(c, noNulls)
			}
		}
		out[t.Name] = vs
	}
	return out
}

// hasGenerated reports whether t has a generated column.
func hasGenerated(t *catalog.Table) bool {
	if t == nil {
		return false
	}
	for i := range t.Columns {
		if t.Columns[i].Generated != "" {
			return true
		}
	}
	return false
}

// skipDeadColumns lets minimization skip running candidates that change
// only dead columns; tests turn it off to compare.
var skipDeadColumns = true

// dropRows tries removing each row, children first (dropping a child
// never breaks a reference); it reports whether any stayed removed.
func dropRows(ctx context.Context, order []*catalog.Table, db0 exec.Database, try func(exec.Database) bool, s *catalog.Schema, trustFK bool) bool {
	db := db0
	moved := false
	for changed := true; changed && ctx.Err() == nil; {
		changed = false
		for ti := len(order) - 1; ti >= 0 && ctx.Err() == nil; ti-- {
			t := order[ti]
			for r := len(db[t.Name]) - 1; r >= 0 && ctx.Err() == nil; r-- {
				if r >= len(db[t.Name]) {
					continue
				}
				cand := cloneDB(db)
				rows := cand[t.Name]
				cand[t.Name] = append(rows[:r:r], rows[r+1:]...)
				if trustFK {
					dropDangling(s, cand)
				}
				if try(cand) {
					db = cand
					changed, moved = true, true
				}
			}
		}
	}
	return moved
}

// dropTables tries emptying each table, children first, then dropping
// the first or second half of its rows.
func dropTables(ctx context.Context, order []*catalog.Table, db exec.Database, try func(exec.Database) bool, s *catalog.Schema, trustFK bool) {
	for ti := len(order) - 1; ti >= 0 && ctx.Err() == nil; ti-- {
		name := order[ti].Name
		for _, keep := range []func(rows [][]exec.Value) [][]exec.Value{
			func([][]exec.Value) [][]exec.Value { return nil },
			func(rows [][]exec.Value) [][]exec.Value { return rows[len(rows)/2:] },
			func(rows [][]exec.Value) [][]exec.Value { return rows[:len(rows)/2] },
		} {
			if len(db[name]) == 0 {
				break
			}
			cand := cloneDB(db)
			cand[name] = append([][]exec.Value(nil), keep(cand[name])...)
			if len(cand[name]) == len(db[name]) {
				continue
			}
			if trustFK {
				dropDangling(s, cand)
			}
			if try(cand) {
				db = cand
			}
		}
	}
}

// simplifyColumns tries giving every row of a table the same simpler
// value in one column.
func simplifyColumns(ctx context.Context, order []*catalog.Table, db exec.Database, try func(string, int, exec.Database) bool, simp map[string][][]exec.Value) {
	for _, t := range order {
		if len(db[t.Name]) == 0 {
			continue
		}
		for col := range t.Columns {
			for _, v := range simp[t.Name][col] {
				if ctx.Err() != nil {
					return
				}
				cand := cloneDB(db)
				changed := false
				for r, row := range cand[t.Name] {
					if cur := row[col]; sameShown(cur, v) {
						continue
					}
					row = append([]exec.Value(nil), row...)
					row[col] = v
					cand[t.Name][r] = row
					changed = true
				}
				if changed && try(t.Name, col, cand) {
					db = cand
					break
				}
			}
		}
	}
}

// simplify tries simpler values cell by cell; it reports whether any
// value changed.
func simplify(ctx context.Context, order []*catalog.Table, db0 exec.Database, try func(string, int, exec.Database) bool, simp map[string][][]exec.Value) bool {
	db := db0
	moved := false
	for _, t := range order {
		for r := 0; r < len(db[t.Name]) && ctx.Err() == nil; r++ {
			for col := range t.Columns {
				for _, v := range simp[t.Name][col] {
					cur := db[t.Name][r][col]
					if ctx.Err() != nil || sameShown(cur, v) {
						break
					}
					cand := cloneDB(db)
					row := append([]exec.Value(nil), cand[t.Name][r]...)
					row[col] = v
					cand[t.Name][r] = row
					if try(t.Name, col, cand) {
						db = cand
						moved = true
						break
					}
				}
			}
		}
	}
	return moved
}

// sameShown reports whether a and b are of one kind and read alike
// (NULL and NULL included), without formatting the common kinds.
func sameShown(a, b exec.Value) bool {
	if a.K != b.K {
		return false
	}
	switch a.K {
	case exec.KNull:
		return true
	case exec.KInt:
		return a.I == b.I
	case exec.KText:
		return a.S == b.S
	case exec.KBool:
		return a.B == b.B
	}
	return a.String() == b.String()
}

// simpler lists replacement values for a column, simplest first.
func simpler(c catalog.Column, noNulls bool) []exec.Value {
	var out []exec.Value
	if !c.NotNull && !noNulls {
		out = append(out, exec.Null)
	}
	var vs []exec.Value
	if c.Enum != nil { // only labels are values of the type
		for _, l := range c.Enum[:min(2, len(c.Enum))] {
			out = append(out, exec.Text(l))
		}
		return out
	}
	switch c.Type {
	case catalog.Int:
		vs = []exec.Value{exec.Int(0), exec.Int(1)}
	case catalog.Numeric:
		vs = []exec.Value{num("0"), num("1")}
	case catalog.Float:
		vs = []exec.Value{exec.Float(0), exec.Float(1)}
	case catalog.Text:
		vs = []exec.Value{exec.Text(""), exec.Text("a")}
	case catalog.Bool:
		vs = []exec.Value{exec.Bool(false), exec.Bool(true)}
	}
	for _, v := range vs {
		if f, ok := fit(c, v); ok {
			out = append(out, f)
		}
	}
	return out
}

// dropDangling removes rows whose references no longer resolve, until
// none remain: the cascade of dropping a referenced row.
func dropDangling(s *catalog.Schema, db exec.Database) {
	for changed := true; changed; {
		changed = false
		for _, t := range s.Tables {
			if t.IsView() || len(t.ForeignKeys) == 0 {
				continue
			}
			rows := db[t.Name]
			kept := rows[:0:0]
			for _, row := range rows {
				ok := true
				for _, fk := range t.ForeignKeys {
					ok = ok && fkHolds(db, fk, row)
				}
				if ok {
					kept = append(kept, row)
				} else {
					changed = true
				}
			}
			db[t.Name] = kept
		}
	}
}

func cloneDB(db exec.Database) exec.Database {
	out := make(exec.Database, len(db))
	for k, rows := range db {
		out[k] = append([][]exec.Value(nil), rows...)
	}
	return out
}

// dropUnread empties the tables neither query reads, keeping those a
// kept row references through a declared foreign key (so the INSERTs
// still load where foreign keys are enforced). Such rows cannot change
// either result, and minimization may not have reached them: a
// counterexample that names them is larger than it needs to be and, for
// SQLite's internal tables that Spider's schemas describe
// (sqlite_sequence), does not even load into a real SQLite.
func dropUnread(s *catalog.Schema, db exec.Database, read map[string]bool) exec.Database {
	keep := map[string]bool{}
	for name := range read {
		keep[name] = true
	}
	for changed := true; changed; {
		changed = false
		for _, t := range s.Tables {
			if !keep[t.Name] || len(db[t.Name]) == 0 {
				continue
			}
			for _, fk := range t.ForeignKeys {
				if p := s.Table(fk.RefTable); p != nil && !keep[p.Name] {
					keep[p.Name], changed = true, true
				}
			}
		}
	}
	out := make(exec.Database, len(db))
	for name, rows := range db {
		if keep[name] {
			out[name] = rows
		} else {
			out[name] = [][]exec.Value{}
		}
	}
	return out
}
