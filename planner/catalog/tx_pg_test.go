package catalog_test

import (
	"context"
	"slices"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestTransactionDDLPG is issue 33 item 7: DDL that a schema file rolls
// back (ROLLBACK, ROLLBACK TO SAVEPOINT, a transaction left open at the
// end) is not loaded, and committed DDL is. Each case's keys and tables
// are what PostgreSQL holds after psql runs the file.
func TestTransactionDDLPG(t *testing.T) {
	const base = "CREATE TABLE t (a int NOT NULL, b int NOT NULL);\n"
	cases := []struct {
		name, ddl string
	}{
		{"rollback undoes a key", base + "BEGIN;\nALTER TABLE t ADD PRIMARY KEY (a);\nROLLBACK;\n"},
		{"commit keeps a key", base + "BEGIN;\nALTER TABLE t ADD PRIMARY KEY (a);\nCOMMIT;\n"},
		{"start transaction, abort", base + "START TRANSACTION;\nALTER TABLE t ADD UNIQUE (b);\nCREATE TABLE u (x int PRIMARY KEY);\nABORT;\nALTER TABLE t ADD PRIMARY KEY (b);\n"},
		{"rollback to savepoint", base + "BEGIN;\nSAVEPOINT s;\nALTER TABLE t ADD UNIQUE (b);\nROLLBACK TO SAVEPOINT s;\nALTER TABLE t ADD PRIMARY KEY (a);\nCOMMIT;\n"},
		{"released savepoint commits with its transaction", base + "BEGIN;\nSAVEPOINT s;\nALTER TABLE t ADD UNIQUE (b);\nRELEASE SAVEPOINT s;\nCOMMIT;\n"},
		{"nested savepoints", base + "BEGIN;\nALTER TABLE t ADD UNIQUE (a);\nSAVEPOINT s1;\nALTER TABLE t ADD UNIQUE (b);\nSAVEPOINT s2;\nALTER TABLE t ADD PRIMARY KEY (a, b);\nROLLBACK TO s1;\nCOMMIT;\n"},
		{"rollback undoes a table", "BEGIN;\nCREATE TABLE gone (id int PRIMARY KEY);\nROLLBACK;\n" + base},
		{"open transaction at the end", base + "BEGIN;\nALTER TABLE t ADD PRIMARY KEY (a);\n"},
		{"commit and chain", base + "BEGIN;\nALTER TABLE t ADD UNIQUE (a);\nCOMMIT AND CHAIN;\nALTER TABLE t ADD UNIQUE (b);\nROLLBACK;\n"},
	}
	ctx := context.Background()
	e := newPGEngine(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conn, msg := e.run(t, ctx, c.ddl)
			if msg != "" {
				t.Fatalf("PostgreSQL refuses the case: %s", msg)
			}
			want := pgKeys(t, ctx, conn)
			s, err := catalog.LoadDDL(c.ddl, catalog.Postgres)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			if got := catalogKeys(s); !slices.Equal(got, want) {
				t.Errorf("catalog holds %q\nPostgreSQL holds %q\n%s", got, want, c.ddl)
			}
		})
	}
}

// TestTransactionDDLReported: what a ROLLBACK undid is reported, and a
// ROLLBACK TO a savepoint that does not exist is an error, as in
// PostgreSQL.
func TestTransactionDDLReported(t *testing.T) {
	_, dropped, err := catalog.LoadDDLReport("CREATE TABLE t (a int);\nBEGIN;\nALTER TABLE t ADD PRIMARY KEY (a);\nROLLBACK;\n", catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	if len(dropped) != 1 || dropped[0].Line != 4 {
		t.Errorf("dropped %v, want one entry at line 4", dropped)
	}
	if _, err := catalog.LoadDDL("CREATE TABLE t (a int);\nBEGIN;\nROLLBACK TO SAVEPOINT nope;\nCOMMIT;\n", catalog.Postgres); err == nil {
		t.Error("ROLLBACK TO an unknown savepoint loaded")
	}
	// Without any transaction statement nothing is reported.
	if _, dropped, err := catalog.LoadDDLReport("CREATE TABLE t (a int PRIMARY KEY);\n", catalog.Postgres); err != nil || len(dropped) != 0 {
		t.Errorf("dropped %v, err %v", dropped, err)
	}
}
