package refute

import (
	"context"
	"math/rand/v2"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// The generator's side of the row rules (rules.go): drawing enum labels,
// and dropping rows a repaired reference made illegal.

// legalize drops the rows that break a row rule after the foreign keys
// were repaired (a reference set to NULL can break a CHECK, and a key
// checked before its row was admitted can collide with a unique index),
// repairing references again until nothing changes.
func (g *generator) legalize(db exec.Database) {
	for changed := true; changed; {
		changed = false
		for name, tr := range g.rowRules {
			rows := db[name]
			if len(rows) == 0 || tr.validate(context.Background(), rows) == "" {
				continue
			}
			var kept, outs [][]exec.Value
			for _, row := range rows {
				row = append([]exec.Value(nil), row...)
				out, ok, err := tr.admit(context.Background(), row, kept, outs)
				if err != nil {
					g.cannot = err.Error()
				}
				if ok && err == nil {
					kept, outs = append(kept, row), append(outs, out)
				}
			}
			db[name] = kept
			changed = true
		}
		if changed && g.trustFK {
			repairFKs(g.s, db)
		}
	}
}

// enumValue draws a label of an enum column: a literal of the queries
// that is a label, or any label. Nothing else is a value of the type.
func (g *generator) enumValue(rng *rand.Rand, m mode, c *catalog.Column, pools *colPools) exec.Value {
	if len(c.Enum) == 0 {
		return exec.Null
	}
	if ex := pools.exact; len(ex) > 0 && rng.Float64() < m.pLit/2 {
		if v := ex[rng.IntN(len(ex))]; isLabel(c, v) {
			return v
		}
	}
	if lits := pools.lits; len(lits) > 0 && rng.Float64() < m.pLit {
		if v := lits[rng.IntN(len(lits))]; isLabel(c, v) {
			return v
		}
	}
	return exec.Text(c.Enum[rng.IntN(len(c.Enum))])
}

// isLabel reports whether v is one of c's enum labels.
func isLabel(c *catalog.Column, v exec.Value) bool {
	if v.K != exec.KText {
		return false
	}
	for _, l := range c.Enum {
		if l == v.S {
			return true
		}
	}
	return false
}
