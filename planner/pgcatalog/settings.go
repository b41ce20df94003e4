package pgcatalog

import (
	"fmt"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// presetSettings are pg_settings rows for PostgreSQL 16's compiled-in
// limits: facts of the server build that drivers read rather than
// assume (pgjdbc's getImportedKeys reads max_index_keys and refuses to
// answer without it), and search_path, whose reset_val DBeaver reads to
// find the default schema, with the value SHOW answers (the endpoint
// keeps no session state for settings). Other settings are not listed.
var presetSettings = []struct{ name, setting, desc string }{
	{"block_size", "8192", "Shows the size of a disk block."},
	{"integer_datetimes", "on", "Shows whether datetimes are integer based."},
	{"max_function_args", "100", "Shows the maximum number of function arguments."},
	{"max_identifier_length", "63", "Shows the maximum identifier length."},
	{"max_index_keys", "32", "Shows the maximum number of index keys."},
	{"search_path", `"$user", public`, "Sets the schema search order for names that are not schema-qualified."},
	{"server_encoding", "UTF8", "Shows the server (database) character set encoding."},
}

// settingsRows are the pg_settings rows: name, setting, unit, category,
// short_desc, extra_desc, context, vartype, source, min_val, max_val,
// enumvals, boot_val, reset_val, sourcefile, sourceline,
// pending_restart.
func settingsRows() [][]exec.Value {
	var rows [][]exec.Value
	for _, p := range presetSettings {
		vartype, category, context := "integer", "Preset Options", "internal"
		switch p.name {
		case "integer_datetimes":
			vartype = "bool"
		case "server_encoding":
			vartype = "string"
		case "search_path":
			vartype, category, context = "string", "Client Connection Defaults / Statement Behavior", "user"
		}
		rows = append(rows, []exec.Value{s(p.name), s(p.setting), null, s(category), s(p.desc), null,
			s(context), s(vartype), s("default"), null, null, null, s(p.setting), s(p.setting), null, null, bl(false)})
	}
	return rows
}

// statRows are pg_stat_user_tables' rows: one per table (not views),
// all counts zero.
func (d *Data) statRows() [][]exec.Value {
	rows := [][]exec.Value{}
	for _, r := range d.rels {
		if r.index != nil || r.table.IsView() {
			continue
		}
		rows = append(rows, []exec.Value{o(r.oid), s("public"), s(r.table.Name), i(0), i(0), i(0), i(0), i(0), i(0)})
	}
	return rows
}

// procOIDs are PostgreSQL's OIDs of the functions that clients name as
// regproc literals: pgjdbc's type cache tests typinput =
// 'pg_catalog.array_in'::regproc.
var procOIDs = map[string]uint32{"array_in": 750, "array_out": 751, "array_recv": 2400, "array_send": 2401,
	"record_in": 2290, "record_out": 2291, "record_recv": 2402, "record_send": 2403}

func init() {
	// Metabase lists tables with their estimated row counts from
	// pg_stat_user_tables (left-joined): the columns tools read, zero
	// for tables that never held a row.
	systemTables = append(systemTables, struct{ schema, name, cols string }{"pg_catalog", "pg_stat_user_tables",
		"relid oid, schemaname name, relname name, seq_scan int8, n_tup_ins int8, n_tup_upd int8, n_tup_del int8, " +
			"n_live_tup int8, n_dead_tup int8"})
	registry["pgcat_regproc_in"] = function{catalog.Int, regprocIn}
	registry["pgcat_btrim"] = function{catalog.Text, btrim}
}

// btrim is trim(BOTH [chars] FROM text), which the plan executor does
// not have: pgjdbc's getIndexInfo trims the quotes pg_get_indexdef
// puts around a column name.
func btrim(_ *Data, a []exec.Value) (exec.Value, error) {
	v := arg(a, 0)
	chars := " "
	if len(a) > 1 {
		c := arg(a, 1)
		if c.IsNull() {
			return null, nil
		}
		chars = c.S
	}
	if v.IsNull() {
		return null, nil
	}
	return s(strings.Trim(v.S, chars)), nil
}

// regprocIn is 'name'::regproc: the function's OID.
func regprocIn(_ *Data, a []exec.Value) (exec.Value, error) {
	v := arg(a, 0)
	if v.IsNull() {
		return null, nil
	}
	name := strings.TrimPrefix(strings.TrimSpace(v.S), "pg_catalog.")
	if oid, ok := procOIDs[name]; ok {
		return o(oid), nil
	}
	return null, fmt.Errorf("%w: function %q does not exist (or is not modelled)", exec.ErrQuery, v.S)
}
