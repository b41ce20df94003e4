package refute

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// alongForeignKeys copies the literals of a referencing column to the
// column it references, transitively. A generated row takes its foreign
// key's values from a parent row, so a literal compared with the child's
// column (TPC-C's c_d_id = 9, whose parent is district.d_id) reaches the
// child only when some parent holds it.
func (l *literals) alongForeignKeys(s *catalog.Schema) {
	type edge struct{ from, to colKey }
	var edges []edge
	for _, t := range s.Tables {
		for _, fk := range t.ForeignKeys {
			for i, c := range fk.Columns {
				if i < len(fk.RefColumns) {
					edges = append(edges, edge{colKey{t.Name, c}, colKey{fk.RefTable, fk.RefColumns[i]}})
				}
			}
		}
	}
	// One pass per edge is enough for a chain as long as the schema's
	// longest; a bounded number of passes also ends reference cycles.
	for range min(len(edges), 8) {
		changed := false
		for _, e := range edges {
			for _, m := range []map[colKey][]exec.Value{l.exact, l.compared, l.byCol} {
				if add := missing(m[e.to], m[e.from]); len(add) > 0 {
					m[e.to] = append(m[e.to], add...)
					changed = true
				}
			}
		}
		if !changed {
			return
		}
	}
}

// missing lists the values of from whose keys to lacks.
func missing(to, from []exec.Value) []exec.Value {
	have := make(map[string]bool, len(to))
	for _, v := range to {
		have[v.Key()] = true
	}
	var out []exec.Value
	for _, v := range from {
		if k := v.Key(); !have[k] {
			have[k] = true
			out = append(out, v)
		}
	}
	return out
}
