package pgcatalog

import (
	"strconv"
	"strings"

	"github.com/pgequiv/pgequiv/internal/pgtypes"
	"github.com/pgequiv/pgequiv/planner/build"
)

// pgType is one built-in type as PostgreSQL's pg_type has it: the OID,
// the name, the array type's OID, typlen, the category, and the name
// format_type prints (with "%s" where a modifier goes).
type pgType struct {
	oid, array uint32
	name       string
	len        int
	category   string
	format     string
}

// builtinTypes are the types a loaded schema can declare and the ones the
// catalog's own columns use; OIDs, lengths and categories are
// PostgreSQL's (pg_type.dat), so drivers that map results by type OID
// read them right.
var builtinTypes = []pgType{
	{16, 1000, "bool", 1, "B", "boolean"},
	{17, 1001, "bytea", -1, "U", "bytea"},
	{18, 1002, "char", 1, "Z", `"char"`},
	{19, 1003, "name", 64, "S", "name"},
	{20, 1016, "int8", 8, "N", "bigint"},
	{21, 1005, "int2", 2, "N", "smallint"},
	{22, 1006, "int2vector", -1, "A", "int2vector"},
	{23, 1007, "int4", 4, "N", "integer"},
	{24, 1008, "regproc", 4, "N", "regproc"},
	{25, 1009, "text", -1, "S", "text"},
	{26, 1028, "oid", 4, "N", "oid"},
	{30, 1013, "oidvector", -1, "A", "oidvector"},
	{114, 199, "json", -1, "U", "json"},
	{194, 0, "pg_node_tree", -1, "Z", "pg_node_tree"},
	{700, 1021, "float4", 4, "N", "real"},
	{701, 1022, "float8", 8, "N", "double precision"},
	{1033, 1034, "aclitem", 12, "U", "aclitem"},
	{1042, 1014, "bpchar", -1, "S", "character%s"},
	{1043, 1015, "varchar", -1, "S", "character varying%s"},
	{1082, 1182, "date", 4, "D", "date"},
	{1083, 1183, "time", 8, "D", "time%s without time zone"},
	{1114, 1115, "timestamp", 8, "D", "timestamp%s without time zone"},
	{1184, 1185, "timestamptz", 8, "D", "timestamp%s with time zone"},
	{1186, 1187, "interval", 16, "T", "interval%s"},
	{1266, 1270, "timetz", 12, "D", "time%s with time zone"},
	{1700, 1231, "numeric", -1, "N", "numeric%s"},
	{2205, 2210, "regclass", 4, "N", "regclass"},
	{2206, 2211, "regtype", 4, "N", "regtype"},
	{2950, 2951, "uuid", 16, "U", "uuid"},
	{3802, 3807, "jsonb", -1, "U", "jsonb"},
}

var typeByOID, typeByName = func() (map[uint32]*pgType, map[string]*pgType) {
	byOID, byName := map[uint32]*pgType{}, map[string]*pgType{}
	for i := range builtinTypes {
		t := &builtinTypes[i]
		byOID[t.oid], byName[t.name] = t, t
	}
	return byOID, byName
}()

// declaredType maps a column's declared type (catalog.Column.TypeSQL,
// e.g. "varchar(20)", "numeric(10,2)", "serial") to its type OID and
// modifier as PostgreSQL stores them in pg_attribute. A type it does not
// know is text, modifier -1.
func declaredType(sql string) (oid uint32, typmod int32) {
	canon := build.CanonicalType(sql, true)
	if canon == "" {
		canon = strings.Trim(strings.ToLower(strings.TrimSpace(sql)), `"`)
	}
	t, ok := typeByName[canon]
	if !ok {
		return pgtypes.Text, -1
	}
	mods := modifiers(sql)
	typmod = -1
	switch t.name {
	case "varchar", "bpchar":
		if len(mods) == 1 {
			typmod = mods[0] + 4
		} else if t.name == "bpchar" {
			typmod = 1 + 4 // char without a length is char(1)
		}
	case "numeric":
		switch len(mods) {
		case 1:
			typmod = mods[0]<<16 + 4
		case 2:
			typmod = mods[0]<<16 | mods[1]&0xffff + 4
		}
	case "time", "timetz", "timestamp", "timestamptz":
		if len(mods) == 1 {
			typmod = mods[0]
		}
	}
	return t.oid, typmod
}

// modifiers reads "(a, b)" in a type's spelling.
func modifiers(sql string) []int32 {
	i, j := strings.IndexByte(sql, '('), strings.IndexByte(sql, ')')
	if i < 0 || j < i {
		return nil
	}
	var out []int32
	for _, p := range strings.Split(sql[i+1:j], ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return nil
		}
		out = append(out, int32(n))
	}
	return out
}

// formatType is pg_catalog.format_type(oid, typmod).
func formatType(oid uint32, typmod int64, hasMod bool) string {
	t, ok := typeByOID[oid]
	if !ok {
		for _, e := range builtinTypes {
			if e.array == oid {
				return formatType(e.oid, typmod, hasMod) + "[]"
			}
		}
		return "???"
	}
	mod := ""
	if hasMod && typmod >= 0 {
		switch t.name {
		case "varchar", "bpchar":
			mod = "(" + strconv.FormatInt(typmod-4, 10) + ")"
		case "numeric":
			if typmod >= 4 {
				p, s := (typmod-4)>>16, (typmod-4)&0xffff
				mod = "(" + strconv.FormatInt(p, 10) + "," + strconv.FormatInt(s, 10) + ")"
			}
		case "time", "timetz", "timestamp", "timestamptz":
			mod = "(" + strconv.FormatInt(typmod, 10) + ")"
		}
	}
	if strings.Contains(t.format, "%s") {
		return strings.Replace(t.format, "%s", mod, 1)
	}
	return t.format
}
