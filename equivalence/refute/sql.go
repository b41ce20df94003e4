package refute

import (
	"math"
	"regexp"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// inserts writes db as INSERT statements, referenced tables first, one
// statement per non-empty table, leaving out generated columns.
func inserts(s *catalog.Schema, db exec.Database, d catalog.Dialect) []string {
	var out []string
	for _, t := range tableOrder(s) {
		rows := db[t.Name]
		if len(rows) == 0 {
			continue
		}
		// Generated columns are the engine's to compute: an INSERT that
		// names one is refused.
		var cols []string
		for _, c := range t.Columns {
			if c.Generated == "" {
				cols = append(cols, quoteIdent(c.Name))
			}
		}
		if len(cols) == 0 { // every column generated
			for range rows {
				out = append(out, "INSERT INTO "+quoteIdent(t.Name)+" DEFAULT VALUES;")
			}
			continue
		}
		tuples := make([]string, len(rows))
		for i, row := range rows {
			vals := make([]string, 0, len(cols))
			for j, v := range row {
				if t.Columns[j].Generated == "" {
					vals = append(vals, literal(v, d))
				}
			}
			tuples[i] = "(" + strings.Join(vals, ", ") + ")"
		}
		out = append(out, "INSERT INTO "+quoteIdent(t.Name)+" ("+strings.Join(cols, ", ")+") VALUES "+strings.Join(tuples, ", ")+";")
	}
	return out
}

var plainIdent = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// quoteIdent quotes a name unless it reads the same unquoted. Double
// quotes work in both dialects.
func quoteIdent(s string) string {
	if plainIdent.MatchString(s) && !reserved[s] {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

var reserved = map[string]bool{"order": true, "group": true, "select": true, "from": true, "where": true, "table": true,
	"user": true, "limit": true, "offset": true, "check": true, "default": true, "references": true, "primary": true,
	"unique": true, "foreign": true, "key": true, "all": true, "and": true, "or": true, "not": true, "null": true,
	"end": true, "case": true, "when": true, "then": true, "else": true, "as": true, "in": true, "is": true, "on": true,
	"to": true, "desc": true, "asc": true, "column": true, "union": true, "values": true, "with": true, "year": true,
	"date": true, "time": true, "name": false}

// literal writes v as an SQL literal of its type.
func literal(v exec.Value, d catalog.Dialect) string {
	switch v.K {
	case exec.KNull:
		return "NULL"
	case exec.KInt, exec.KNumeric:
		return v.String()
	case exec.KFloat:
		if math.IsNaN(v.F) || math.IsInf(v.F, 0) {
			return "'" + v.String() + "'"
		}
		return v.String()
	case exec.KBool:
		if d == catalog.SQLite {
			if v.B {
				return "1"
			}
			return "0"
		}
		return strings.ToUpper(v.String())
	}
	return "'" + strings.ReplaceAll(v.String(), "'", "''") + "'"
}
