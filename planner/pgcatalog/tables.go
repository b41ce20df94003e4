package pgcatalog

import (
	"fmt"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// systemTables are the pg_catalog and information_schema relations the
// catalog holds, with PostgreSQL 16's columns (in its order) and their
// types. Array columns (reloptions, conkey, indkey, ...) hold their text
// form: the planner has no arrays, and clients read them as text or not
// at all. A column a client query names that is missing here makes that
// query fail to plan (42703), so additions go here.
var systemTables = []struct{ schema, name, cols string }{
	{"pg_catalog", "pg_namespace", "oid oid, nspname name, nspowner oid, nspacl text"},
	{"pg_catalog", "pg_class", "oid oid, relname name, relnamespace oid, reltype oid, reloftype oid, relowner oid, relam oid, " +
		"relfilenode oid, reltablespace oid, relpages int4, reltuples float4, relallvisible int4, reltoastrelid oid, " +
		"relhasindex bool, relisshared bool, relpersistence char, relkind char, relnatts int2, relchecks int2, " +
		"relhasrules bool, relhastriggers bool, relhassubclass bool, relrowsecurity bool, relforcerowsecurity bool, " +
		"relispopulated bool, relreplident char, relispartition bool, relrewrite oid, relfrozenxid oid, relminmxid oid, " +
		"relacl text, reloptions text, relpartbound pg_node_tree"},
	{"pg_catalog", "pg_attribute", "attrelid oid, attname name, atttypid oid, attstattarget int4, attlen int2, attnum int2, " +
		"attndims int4, attcacheoff int4, atttypmod int4, attbyval bool, attalign char, attstorage char, attcompression char, " +
		"attnotnull bool, atthasdef bool, atthasmissing bool, attidentity char, attgenerated char, attisdropped bool, " +
		"attislocal bool, attinhcount int4, attcollation oid, attacl text, attoptions text, attfdwoptions text, attmissingval text"},
	{"pg_catalog", "pg_type", "oid oid, typname name, typnamespace oid, typowner oid, typlen int2, typbyval bool, typtype char, " +
		"typcategory char, typispreferred bool, typisdefined bool, typdelim char, typrelid oid, typsubscript oid, typelem oid, " +
		"typarray oid, typinput oid, typoutput oid, typreceive oid, typsend oid, typmodin oid, typmodout oid, typanalyze oid, " +
		"typalign char, typstorage char, typnotnull bool, typbasetype oid, typtypmod int4, typndims int4, typcollation oid, " +
		"typdefaultbin pg_node_tree, typdefault text, typacl text"},
	{"pg_catalog", "pg_index", "indexrelid oid, indrelid oid, indnatts int2, indnkeyatts int2, indisunique bool, " +
		"indnullsnotdistinct bool, indisprimary bool, indisexclusion bool, indimmediate bool, indisclustered bool, " +
		"indisvalid bool, indcheckxmin bool, indisready bool, indislive bool, indisreplident bool, indkey int2vector, " +
		"indcollation oidvector, indclass oidvector, indoption int2vector, indexprs pg_node_tree, indpred pg_node_tree"},
	{"pg_catalog", "pg_constraint", "oid oid, conname name, connamespace oid, contype char, condeferrable bool, " +
		"condeferred bool, convalidated bool, conrelid oid, contypid oid, conindid oid, conparentid oid, confrelid oid, " +
		"confupdtype char, confdeltype char, confmatchtype char, conislocal bool, coninhcount int4, connoinherit bool, " +
		"conkey text, confkey text, conpfeqop text, conppeqop text, conffeqop text, confdelsetcols text, conexclop text, " +
		"conbin pg_node_tree"},
	{"pg_catalog", "pg_database", "oid oid, datname name, datdba oid, encoding int4, datlocprovider char, datistemplate bool, " +
		"datallowconn bool, datconnlimit int4, datfrozenxid oid, datminmxid oid, dattablespace oid, datcollate text, " +
		"datctype text, daticulocale text, datcollversion text, datacl text"},
	{"pg_catalog", "pg_proc", "oid oid, proname name, pronamespace oid, proowner oid, prolang oid, procost float4, " +
		"prorows float4, provariadic oid, prosupport oid, prokind char, prosecdef bool, proleakproof bool, proisstrict bool, " +
		"proretset bool, provolatile char, proparallel char, pronargs int2, pronargdefaults int2, prorettype oid, " +
		"proargtypes oidvector, proallargtypes text, proargmodes text, proargnames text, proargdefaults pg_node_tree, " +
		"protrftypes text, prosrc text, probin text, prosqlbody pg_node_tree, proconfig text, proacl text"},
	{"pg_catalog", "pg_description", "objoid oid, classoid oid, objsubid int4, description text"},
	{"pg_catalog", "pg_attrdef", "oid oid, adrelid oid, adnum int2, adbin pg_node_tree"},
	{"pg_catalog", "pg_collation", "oid oid, collname name, collnamespace oid, collowner oid, collprovider char, " +
		"collisdeterministic bool, collencoding int4, collcollate text, collctype text, colliculocale text, collversion text"},
	{"pg_catalog", "pg_roles", "rolname name, rolsuper bool, rolinherit bool, rolcreaterole bool, rolcreatedb bool, " +
		"rolcanlogin bool, rolreplication bool, rolconnlimit int4, rolpassword text, rolvaliduntil timestamptz, " +
		"rolbypassrls bool, rolconfig text, oid oid"},
	{"pg_catalog", "pg_user", "usename name, usesysid oid, usecreatedb bool, usesuper bool, userepl bool, " +
		"usebypassrls bool, passwd text, valuntil timestamptz, useconfig text"},
	{"pg_catalog", "pg_am", "oid oid, amname name, amhandler oid, amtype char"},
	{"pg_catalog", "pg_tablespace", "oid oid, spcname name, spcowner oid, spcacl text, spcoptions text"},
	{"pg_catalog", "pg_sequence", "seqrelid oid, seqtypid oid, seqstart int8, seqincrement int8, seqmax int8, " +
		"seqmin int8, seqcache int8, seqcycle bool"},
	{"pg_catalog", "pg_enum", "oid oid, enumtypid oid, enumsortorder float4, enumlabel name"},
	{"pg_catalog", "pg_inherits", "inhrelid oid, inhparent oid, inhseqno int4, inhdetachpending bool"},
	{"pg_catalog", "pg_extension", "oid oid, extname name, extowner oid, extnamespace oid, extrelocatable bool, " +
		"extversion text, extconfig text, extcondition text"},
	{"pg_catalog", "pg_settings", "name text, setting text, unit text, category text, short_desc text, extra_desc text, " +
		"context text, vartype text, source text, min_val text, max_val text, enumvals text, boot_val text, reset_val text, " +
		"sourcefile text, sourceline int4, pending_restart bool"},
	{"pg_catalog", "pg_policy", "oid oid, polname name, polrelid oid, polcmd char, polpermissive bool, polroles text, " +
		"polqual pg_node_tree, polwithcheck pg_node_tree"},
	{"pg_catalog", "pg_statistic_ext", "oid oid, stxrelid oid, stxname name, stxnamespace oid, stxowner oid, " +
		"stxstattarget int4, stxkeys int2vector, stxkind text, stxexprs pg_node_tree"},
	{"pg_catalog", "pg_publication", "oid oid, pubname name, pubowner oid, puballtables bool, pubinsert bool, " +
		"pubupdate bool, pubdelete bool, pubtruncate bool, pubviaroot bool"},
	{"pg_catalog", "pg_publication_namespace", "oid oid, pnpubid oid, pnnspid oid"},
	{"pg_catalog", "pg_publication_rel", "oid oid, prpubid oid, prrelid oid, prqual pg_node_tree, prattrs int2vector"},
	{"pg_catalog", "pg_trigger", "oid oid, tgrelid oid, tgparentid oid, tgname name, tgfoid oid, tgtype int2, " +
		"tgenabled char, tgisinternal bool, tgconstrrelid oid, tgconstrindid oid, tgconstraint oid, tgdeferrable bool, " +
		"tginitdeferred bool, tgnargs int2, tgattr int2vector, tgargs bytea, tgqual pg_node_tree, tgoldtable name, tgnewtable name"},
	{"pg_catalog", "pg_depend", "classid oid, objid oid, objsubid int4, refclassid oid, refobjid oid, refobjsubid int4, deptype char"},
	// The integers 1..n that set-returning functions are rewritten to
	// read (srf.go); not a PostgreSQL table.
	{"pg_catalog", seriesTable, "n int4"},
	{"information_schema", "schemata", "catalog_name name, schema_name name, schema_owner name, " +
		"default_character_set_catalog name, default_character_set_schema name, default_character_set_name name, sql_path text"},
	{"information_schema", "tables", "table_catalog name, table_schema name, table_name name, table_type text, " +
		"self_referencing_column_name name, reference_generation text, user_defined_type_catalog name, " +
		"user_defined_type_schema name, user_defined_type_name name, is_insertable_into text, is_typed text, commit_action text"},
	{"information_schema", "columns", "table_catalog name, table_schema name, table_name name, column_name name, " +
		"ordinal_position int4, column_default text, is_nullable text, data_type text, character_maximum_length int4, " +
		"character_octet_length int4, numeric_precision int4, numeric_precision_radix int4, numeric_scale int4, " +
		"datetime_precision int4, interval_type text, interval_precision int4, udt_catalog name, udt_schema name, " +
		"udt_name name, is_identity text, is_generated text, generation_expression text, is_updatable text"},
	{"information_schema", "table_constraints", "constraint_catalog name, constraint_schema name, constraint_name name, " +
		"table_catalog name, table_schema name, table_name name, constraint_type text, is_deferrable text, " +
		"initially_deferred text, enforced text, nulls_distinct text"},
	{"information_schema", "key_column_usage", "constraint_catalog name, constraint_schema name, constraint_name name, " +
		"table_catalog name, table_schema name, table_name name, column_name name, ordinal_position int4, " +
		"position_in_unique_constraint int4"},
}

// sysColumn is a system table column: its planner column and type OID.
type sysColumn struct {
	col catalog.Column
	oid uint32
}

// familyOf is the planner family of a catalog column's type.
func familyOf(typ string) catalog.Type {
	switch typ {
	case "oid", "int2", "int4", "int8":
		return catalog.Int
	case "bool":
		return catalog.Bool
	case "float4":
		return catalog.Float
	case "timestamptz":
		return catalog.Timestamp
	}
	return catalog.Text // name, text, "char", vectors, arrays, pg_node_tree
}

// systemSchema builds the planner schema of the system tables, and the
// type OID of each column by "table.column".
func systemSchema() (*catalog.Schema, map[string]uint32, error) {
	oids := map[string]uint32{}
	var tables []*catalog.Table
	for _, st := range systemTables {
		t := &catalog.Table{Name: st.name}
		for i, c := range strings.Split(st.cols, ", ") {
			name, typ, ok := strings.Cut(c, " ")
			if !ok {
				return nil, nil, fmt.Errorf("pgcatalog: %s: bad column %q", st.name, c)
			}
			pt, ok := typeByName[typ]
			if !ok {
				return nil, nil, fmt.Errorf("pgcatalog: %s.%s: unknown type %q", st.name, name, typ)
			}
			sqlType := typ
			if typ == "char" {
				// PostgreSQL's one-byte "char", not char(1): an empty
				// one ('\0') prints as '', not blank-padded.
				sqlType = `"char"`
			}
			t.Columns = append(t.Columns, catalog.Column{Name: name, Type: familyOf(typ), TypeSQL: sqlType, Ordinal: i})
			oids[st.name+"."+name] = pt.oid
		}
		tables = append(tables, t)
	}
	s, err := catalog.NewSchema(catalog.Postgres, tables)
	if err != nil {
		return nil, nil, fmt.Errorf("pgcatalog: system schema: %w", err)
	}
	return s, oids, nil
}

// systemSchemaOf says which schema ("pg_catalog", "information_schema")
// holds a system table; "" for names that are none.
func systemSchemaOf(name string) string {
	for _, st := range systemTables {
		if st.name == name {
			return st.schema
		}
	}
	return ""
}
