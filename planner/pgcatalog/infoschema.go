package pgcatalog

import (
	"strings"

	"github.com/pgequiv/pgequiv/internal/pgtypes"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// infoColumnRow is a column's information_schema.columns row, with the
// SQL-standard type name and the precision fields PostgreSQL derives
// from the type and modifier.
func (d *Data) infoColumnRow(t *catalog.Table, c catalog.Column, typ uint32, mod int32) []exec.Value {
	dataType := formatType(typ, -1, false)
	if typ == 1114 || typ == 1184 || typ == 1083 || typ == 1266 {
		dataType = strings.Replace(typeByOID[typ].format, "%s", "", 1)
	}
	charLen, octetLen, prec, radix, scale, dtPrec := null, null, null, null, null, null
	switch typ {
	case 1042, 1043:
		if mod >= 4 {
			charLen, octetLen = i(int(mod-4)), i(4*int(mod-4))
		} else {
			octetLen = i(1073741824)
		}
	case pgtypes.Text:
		octetLen = i(1073741824)
	case pgtypes.Int2, pgtypes.Int4, pgtypes.Int8:
		prec, radix, scale = i(map[uint32]int{pgtypes.Int2: 16, pgtypes.Int4: 32, pgtypes.Int8: 64}[typ]), i(2), i(0)
	case 700, pgtypes.Float8:
		prec, radix = i(map[uint32]int{700: 24, pgtypes.Float8: 53}[typ]), i(2)
	case pgtypes.Numeric:
		radix = i(10)
		if mod >= 4 {
			prec, scale = i(int((mod-4)>>16)), i(int((mod-4)&0xffff))
		}
	case 1082:
		dtPrec = i(0)
	case 1083, 1114, 1184, 1266:
		dtPrec = i(6)
		if mod >= 0 {
			dtPrec = i(int(mod))
		}
	}
	gen, genExpr := "NEVER", null
	if c.Generated != "" {
		gen, genExpr = "ALWAYS", s(c.Generated)
	}
	return []exec.Value{s(d.dbase), s("public"), s(t.Name), s(c.Name), i(c.Ordinal + 1), null, s(yesNo(!c.NotNull)), s(dataType),
		charLen, octetLen, prec, radix, scale, dtPrec, null, null, s(d.dbase), s("pg_catalog"), s(typeByOID[typ].name),
		s("NO"), s(gen), genExpr, s(yesNo(!t.IsView()))}
}

// infoConstraintRows adds a constraint's table_constraints and
// key_column_usage rows.
func (d *Data) infoConstraintRows(db exec.Database, c *constraint) {
	kind := map[byte]string{'p': "PRIMARY KEY", 'u': "UNIQUE", 'f': "FOREIGN KEY", 'c': "CHECK"}[c.kind]
	db["table_constraints"] = append(db["table_constraints"], []exec.Value{s(d.dbase), s("public"), s(c.name), s(d.dbase),
		s("public"), s(c.table.table.Name), s(kind), s("NO"), s("NO"), s("YES"), null})
	for k, col := range c.cols {
		pos := null
		if c.kind == 'f' {
			pos = i(k + 1)
		}
		db["key_column_usage"] = append(db["key_column_usage"], []exec.Value{s(d.dbase), s("public"), s(c.name), s(d.dbase),
			s("public"), s(c.table.table.Name), s(c.table.table.Columns[col].Name), i(k + 1), pos})
	}
}
