package catalog_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestForeignKeyRejectedPG is issue 33 item 14: a PostgreSQL schema whose
// foreign key the engine refuses (its table declared later, no key
// matching the referenced columns, a view) is refused by the loader
// too, with an error naming the statement; what PostgreSQL accepts
// (pg_dump's foreign keys added with ALTER TABLE at the end, a table
// referencing itself) loads. psql decides each case.
func TestForeignKeyRejectedPG(t *testing.T) {
	cases := []struct {
		name, ddl string
		stmt      string // what the loader's error names, when it refuses
	}{
		{"forward reference", "CREATE TABLE child (id int PRIMARY KEY, pid int REFERENCES parent (id));\nCREATE TABLE parent (id int PRIMARY KEY);\n", "line 1: CREATE TABLE child"},
		{"backward reference", "CREATE TABLE parent (id int PRIMARY KEY);\nCREATE TABLE child (id int PRIMARY KEY, pid int REFERENCES parent (id));\n", ""},
		{"self reference before its key", "CREATE TABLE node (up int REFERENCES node (id), id int PRIMARY KEY);\n", ""},
		{"pg_dump order", "CREATE TABLE child (id int, pid int);\nCREATE TABLE parent (id int);\nALTER TABLE ONLY parent ADD CONSTRAINT parent_pkey PRIMARY KEY (id);\nALTER TABLE ONLY child ADD CONSTRAINT child_pid_fkey FOREIGN KEY (pid) REFERENCES parent (id);\n", ""},
		{"alter before the key", "CREATE TABLE parent (id int);\nCREATE TABLE child (pid int);\nALTER TABLE child ADD FOREIGN KEY (pid) REFERENCES parent (id);\nALTER TABLE parent ADD PRIMARY KEY (id);\n", "line 3: ALTER TABLE child"},
		{"non-key column", "CREATE TABLE parent (id int PRIMARY KEY, code int);\nCREATE TABLE child (code int REFERENCES parent (code));\n", "line 2: CREATE TABLE child"},
		{"unique set in another order", "CREATE TABLE parent (a int, b int, UNIQUE (a, b));\nCREATE TABLE child (x int, y int, FOREIGN KEY (x, y) REFERENCES parent (b, a));\n", ""},
		{"part of a key", "CREATE TABLE parent (a int, b int, PRIMARY KEY (a, b));\nCREATE TABLE child (x int REFERENCES parent (a));\n", "line 2: CREATE TABLE child"},
		{"plain unique index", "CREATE TABLE parent (code int);\nCREATE UNIQUE INDEX parent_code ON parent (code);\nCREATE TABLE child (code int REFERENCES parent (code));\n", ""},
		{"partial unique index", "CREATE TABLE parent (code int, live bool);\nCREATE UNIQUE INDEX parent_code ON parent (code) WHERE live;\nCREATE TABLE child (code int REFERENCES parent (code));\n", "line 3: CREATE TABLE child"},
		{"deferrable unique", "CREATE TABLE parent (code int UNIQUE DEFERRABLE);\nCREATE TABLE child (code int REFERENCES parent (code));\n", "line 2: CREATE TABLE child"},
		{"no primary key", "CREATE TABLE parent (code int UNIQUE);\nCREATE TABLE child (code int REFERENCES parent);\n", "line 2: CREATE TABLE child"},
		{"a view", "CREATE TABLE parent (id int PRIMARY KEY);\nCREATE VIEW pv AS SELECT id FROM parent;\nCREATE TABLE child (id int REFERENCES pv (id));\n", "line 3: CREATE TABLE child"},
		{"not valid, table missing", "CREATE TABLE child (pid int);\nALTER TABLE child ADD FOREIGN KEY (pid) REFERENCES parent (id) NOT VALID;\nCREATE TABLE parent (id int PRIMARY KEY);\n", "line 2: ALTER TABLE child"},
	}
	ctx := context.Background()
	e := newPGEngine(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, msg := e.run(t, ctx, c.ddl)
			_, err := catalog.LoadDDL(c.ddl, catalog.Postgres)
			if (msg != "") != (err != nil) {
				t.Fatalf("PostgreSQL says %q, the loader %v\n%s", msg, err, c.ddl)
			}
			if (c.stmt != "") != (msg != "") {
				t.Fatalf("the case expects rejection %v, PostgreSQL says %q", c.stmt != "", msg)
			}
			if err != nil && (!errors.Is(err, catalog.ErrRejected) || !strings.Contains(err.Error(), c.stmt)) {
				t.Errorf("error %v: want ErrRejected naming %q", err, c.stmt)
			}
		})
	}
}
