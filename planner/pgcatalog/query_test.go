package pgcatalog

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner/build"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// unsupported are captured client queries that do not run yet, with why.
var unsupported = map[string]string{
	"unnest(ix.indkey)": "set-returning functions in the target list (SQLAlchemy get_pk_constraint)",
}

// TestCapturedQueriesRun runs every query psql (\d, \dt, \dn, \l, \df)
// and SQLAlchemy 1.4 (connect, inspect()) sent to a real PostgreSQL with
// log_statement=all (testdata/captured.json) over the example schema's
// catalog.
func TestCapturedQueriesRun(t *testing.T) {
	b, err := os.ReadFile("testdata/captured.json")
	if err != nil {
		t.Fatal(err)
	}
	var qs []string
	if err := json.Unmarshal(b, &qs); err != nil {
		t.Fatal(err)
	}
	s, err := catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(s, "me", "kennel")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		skip := ""
		for k, why := range unsupported {
			if strings.Contains(q, k) {
				skip = why
			}
		}
		if !Reads(q) {
			t.Errorf("Reads is false for a catalog query: %.80q", q)
		}
		_, err := c.Query(context.Background(), q)
		switch {
		case skip == "" && err != nil:
			t.Errorf("%.80q: %v", q, err)
		case skip != "" && err == nil:
			t.Errorf("%.80q runs now; drop it from unsupported (%s)", q, skip)
		}
	}
}

// TestCatalogValues checks the values clients read against what
// PostgreSQL reports for the same DDL: format_type with modifiers, key
// and foreign-key definitions, regclass casts.
func TestCatalogValues(t *testing.T) {
	ddl := `CREATE TABLE a (id int PRIMARY KEY, code varchar(12) NOT NULL UNIQUE, price numeric(10,2), at timestamp(3), c char(4), f float8, b bigint);
CREATE TABLE "Mixed" (x smallint REFERENCES a (id));`
	s, err := catalog.LoadDDL(ddl, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(s, "me", "db")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ sql, want string }{
		{`SELECT string_agg(pg_catalog.format_type(atttypid, atttypmod), ',') FROM pg_attribute WHERE attrelid = 'a'::regclass`,
			"integer,character varying(12),numeric(10,2),timestamp(3) without time zone,character(4),double precision,bigint"},
		{`SELECT pg_get_constraintdef(oid, true) FROM pg_constraint WHERE contype = 'f'`, `FOREIGN KEY (x) REFERENCES a(id)`},
		{`SELECT conname FROM pg_constraint WHERE contype = 'u'`, `a_code_key`},
		{`SELECT pg_get_indexdef(indexrelid, 0, true) FROM pg_index WHERE indisprimary`, `CREATE UNIQUE INDEX a_pkey ON public.a USING btree (id)`},
		{`SELECT c.oid::pg_catalog.regclass::text FROM pg_class c WHERE c.relname OPERATOR(pg_catalog.~) '^(Mixed)$' COLLATE pg_catalog.default`, `"Mixed"`},
		{`SELECT atttypid::text FROM pg_attribute WHERE attname = 'b'`, `20`},
		{`SELECT data_type || '/' || udt_name || '/' || character_maximum_length FROM information_schema.columns WHERE column_name = 'code'`, `character varying/varchar/12`},
		{`SELECT numeric_precision::text || ',' || numeric_scale::text FROM information_schema.columns WHERE column_name = 'price'`, `10,2`},
	} {
		r, err := c.Query(context.Background(), tc.sql)
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		if len(r.Rows) != 1 || r.Rows[0][0] == nil || *r.Rows[0][0] != tc.want {
			t.Errorf("%s: got %v, want %q", tc.sql, r.Rows, tc.want)
		}
	}
}

// TestCatalogFunctionsStayScoped: without the catalog's Extension (as the
// judge builds) the catalog-only constructs do not plan.
func TestCatalogFunctionsStayScoped(t *testing.T) {
	s, err := catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"SELECT pg_catalog.format_type(age, 1) FROM dogs",
		"SELECT name FROM dogs WHERE name ~ '^a'",
		"SELECT dog_id::regclass FROM dogs",
		"SELECT name COLLATE pg_catalog.default FROM dogs",
	} {
		if _, err := build.Build(s, q); err == nil {
			t.Errorf("%s planned without the catalog extension", q)
		}
	}
}
