package pgcatalog

import (
	"context"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestPgJDBCConstructs checks the constructs pgjdbc's DatabaseMetaData
// queries use, over the example schema, against PostgreSQL 15's answers
// for the same DDL (noted by hand from psql): comma-joined catalog
// relations, _pg_expandarray and its fields, pg_get_indexdef of one
// column, 'name'::regproc, trim(BOTH chars FROM s), pg_settings' preset
// limits. Rows are joined with ";" and values with "|".
func TestPgJDBCConstructs(t *testing.T) {
	s, err := catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(s, "me", "kennel")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, sql, want string
		err             string // a substring of the error, instead of rows
	}{
		{"comma join of nine relations (getImportedKeys)",
			`SELECT pkc.relname, pka.attname, fka.attname, pos.n FROM pg_catalog.pg_namespace pkn, pg_catalog.pg_class pkc,
			 pg_catalog.pg_attribute pka, pg_catalog.pg_namespace fkn, pg_catalog.pg_class fkc, pg_catalog.pg_attribute fka,
			 pg_catalog.pg_constraint con, pg_catalog.generate_series(1, 32) pos(n), pg_catalog.pg_class pkic
			 WHERE pkn.oid = pkc.relnamespace AND pkc.oid = pka.attrelid AND pka.attnum = con.confkey[pos.n] AND con.confrelid = pkc.oid
			 AND fkn.oid = fkc.relnamespace AND fkc.oid = fka.attrelid AND fka.attnum = con.conkey[pos.n] AND con.conrelid = fkc.oid
			 AND con.contype = 'f' AND (pkic.relkind = 'i' OR pkic.relkind = 'I') AND pkic.oid = con.conindid
			 AND fkn.nspname = 'public' AND fkc.relname = 'dogs' ORDER BY pkc.relname`,
			"breeds|breed_code|breed_code|1;owners|owner_id|owner_id|1", ""},
		{"comma join with an unqualified column (stays in WHERE)",
			`SELECT c.relname FROM pg_class c, pg_namespace n WHERE c.relnamespace = n.oid AND relname = 'dogs'`, "dogs", ""},
		{"comma join with a subquery condition",
			`SELECT c.relname FROM pg_class c, pg_namespace n WHERE c.relnamespace = n.oid AND n.nspname = 'public'
			 AND c.oid IN (SELECT conrelid FROM pg_constraint WHERE contype = 'f') ORDER BY 1`, "dogs;treatments", ""},
		{"comma join, a condition on the first relation only",
			`SELECT a.attname FROM pg_attribute a, pg_class c WHERE a.attnum = 2 AND a.attrelid = c.oid AND c.relname = 'dogs'`, "owner_id", ""},
		{"_pg_expandarray fields zip (getPrimaryKeys)",
			`SELECT result.column_name, result.key_seq FROM (SELECT a.attname AS column_name,
			 (information_schema._pg_expandarray(i.indkey)).n AS key_seq, information_schema._pg_expandarray(i.indkey) AS keys,
			 a.attnum AS a_attnum FROM pg_catalog.pg_class ct JOIN pg_catalog.pg_attribute a ON (ct.oid = a.attrelid)
			 JOIN pg_catalog.pg_index i ON (a.attrelid = i.indrelid) WHERE ct.relname = 'treatments' AND i.indisprimary) result
			 WHERE result.a_attnum = (result.keys).x`, "treatment_id|1", ""},
		{"_pg_expandarray's x and n of one call",
			`SELECT (information_schema._pg_expandarray(i.indkey)).x, (information_schema._pg_expandarray(i.indkey)).n
			 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'owners_email_key'`, "5|1", ""},
		{"_pg_expandarray has no other field",
			`SELECT (information_schema._pg_expandarray(i.indkey)).y FROM pg_index i`, "", "no field y"},
		{"a subquery's int2vector column subscripted (getIndexInfo)",
			`SELECT t.opt[t.pos - 1] & 1::smallint FROM (SELECT i.indoption AS opt, 1 AS pos FROM pg_index i
			 JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'dogs_pkey') t`, "0", ""},
		{"pg_get_indexdef of one column, and past the last",
			`SELECT pg_get_indexdef(i.indexrelid, 1, false), '[' || pg_get_indexdef(i.indexrelid, 2, false) || ']'
			 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'owners_email_key'`, "email|[]", ""},
		{"regproc literal", `SELECT 'pg_catalog.array_in'::regproc = 750`, "t", ""},
		{"regproc literal compared with typinput",
			`SELECT count(*) FROM pg_type WHERE typinput = 'pg_catalog.array_in'::regproc AND typname = 'int4'`, "0", ""},
		{"unknown regproc", `SELECT 'nosuch'::regproc = 1`, "", `function "nosuch" does not exist`},
		{"trim both chars", `SELECT trim(both '"' from '"ab""'), trim('  x ')`, "ab|x", ""},
		{"pg_settings max_index_keys (getImportedKeys)", `SELECT setting FROM pg_catalog.pg_settings WHERE name='max_index_keys'`, "32", ""},
		{"pg_settings preset limits",
			`SELECT string_agg(name || '=' || setting, ',') FROM pg_settings WHERE name IN ('max_identifier_length', 'block_size')`,
			"block_size=8192,max_identifier_length=63", ""},
		{"pg_settings search_path (DBeaver's default schema)",
			`SELECT reset_val FROM pg_settings WHERE name = 'search_path'`, `"$user", public`, ""},
		{"pg_stat_user_tables: one row per table (Metabase)",
			`SELECT count(*), sum(n_live_tup) FROM pg_stat_user_tables WHERE schemaname = 'public'`, "5|0", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := c.Query(context.Background(), tc.sql)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want an error with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var rows []string
			for _, row := range r.Rows {
				var vals []string
				for _, v := range row {
					if v == nil {
						vals = append(vals, "NULL")
					} else {
						vals = append(vals, *v)
					}
				}
				rows = append(rows, strings.Join(vals, "|"))
			}
			if got := strings.Join(rows, ";"); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCommaListJoins: a comma list becomes a chain of inner joins with
// each condition at the join where its last relation enters; conditions
// whose relations are not known stay in WHERE.
func TestCommaListJoins(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT 1 FROM a, b, c WHERE a.x = b.y AND c.z = 1 AND a.k = 2",
			"SELECT 1 FROM a JOIN b ON a.x = b.y AND a.k = 2 JOIN c ON c.z = 1"},
		{"SELECT 1 FROM a, b WHERE a.x = b.y AND z = 1",
			"SELECT 1 FROM a JOIN b ON a.x = b.y WHERE z = 1"},
		{"SELECT 1 FROM a, b WHERE a.x IN (SELECT y FROM c) AND a.x = b.y",
			"SELECT 1 FROM a JOIN b ON a.x = b.y WHERE a.x IN (SELECT y FROM c)"},
		{"SELECT 1 FROM a, b WHERE true",
			"SELECT 1 FROM a JOIN b ON true WHERE true"},
		// Two items with one alias: left as written.
		{"SELECT 1 FROM s.a, t.a WHERE a.x = 1", "SELECT 1 FROM s.a, t.a WHERE a.x = 1"},
		// No WHERE: nothing to move.
		{"SELECT 1 FROM a, b", "SELECT 1 FROM a, b"},
	} {
		got, err := rewrite(tc.in, nil)
		if err != nil || got != tc.want {
			t.Errorf("%s\n got %q (%v)\nwant %q", tc.in, got, err, tc.want)
		}
	}
}
