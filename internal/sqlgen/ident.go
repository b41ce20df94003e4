package sqlgen

import "strings"

// ident quotes name when PostgreSQL's grammar would not read it back as
// the same identifier: upper case, odd characters, or a keyword that
// cannot stand as a column reference. Quoting a lower-case name changes
// nothing in either dialect, so quoting more than needed is safe.
func ident(name string) string {
	if name == "" {
		return `""`
	}
	plain := !(name[0] >= '0' && name[0] <= '9')
	for i := 0; i < len(name) && plain; i++ {
		c := name[i]
		plain = c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
	}
	if plain && !keywords[name] {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// keywords are PostgreSQL's reserved, type/function-name and column-name
// keywords: the ones that are not safe as a bare column reference.
var keywords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`all analyse analyze and any array as asc asymmetric both case cast
check collate column constraint create current_catalog current_date current_role current_time
current_timestamp current_user default deferrable desc distinct do else end except false fetch for
foreign from grant group having in initially intersect into lateral leading limit localtime
localtimestamp not null offset on only or order placing primary references returning select
session_user some symmetric system_user table then to trailing true union unique user using variadic
when where window with authorization binary collation concurrently cross current_schema freeze full
ilike inner is isnull join left like natural notnull outer overlaps right similar tablesample verbose
between bigint bit boolean char character coalesce dec decimal exists extract float greatest grouping
inout int integer interval least national nchar none normalize nullif numeric out overlay position
precision real row setof smallint substring time timestamp treat trim values varchar xmlattributes
xmlconcat xmlelement xmlexists xmlforest xmlnamespaces xmlparse xmlpi xmlroot xmlserialize xmltable
json json_array json_arrayagg json_exists json_object json_objectagg json_query json_scalar
json_serialize json_table json_value merge_action`) {
		m[w] = true
	}
	return m
}()
