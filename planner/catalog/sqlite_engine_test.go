package catalog_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/catalog/sqlitefile"
)

// sqliteFile writes a SQLite database file holding ddl and returns its
// path and an open handle on it.
func sqliteFile(t *testing.T, ddl string) (string, *sql.DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "db.sqlite")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(ddl); err != nil {
		t.Fatalf("SQLite refuses %s: %v", ddl, err)
	}
	return path, db
}

// affinityOf names the affinity SQLite gives a column of family ty, as
// the catalog's families stand for them: every value family but REAL
// and TEXT converts as NUMERIC (INTEGER affinity converts alike), and a
// column of no type or BLOB keeps what it is given.
func affinityOf(ty catalog.Type) string {
	switch ty {
	case catalog.Int, catalog.Numeric, catalog.Bool, catalog.Date, catalog.Timestamp:
		return "numeric"
	case catalog.Float:
		return "real"
	case catalog.Text:
		return "text"
	case catalog.Unknown, catalog.Bytes:
		return "blob"
	}
	return "none: " + ty.String()
}

// TestSQLiteAffinityFromTypeName is issue 33 item 12: a SQLite column's
// family follows SQLite's affinity rules for its declared type, in
// order (INT; CHAR, CLOB, TEXT; BLOB or none; REAL, FLOA, DOUB;
// NUMERIC), in both loaders. SQLite itself says which affinity each
// column has: what typeof() reads back from '5' and 5 stored in it.
func TestSQLiteAffinityFromTypeName(t *testing.T) {
	types := []string{
		"INTEGER", "INT", "TINYINT", "BIGINT", "INT8", "UNSIGNED BIG INT", "INTEGER(11)",
		"CHARACTER(20)", "VARCHAR(255)", "VARYING CHARACTER(255)", "NCHAR(55)", "NVARCHAR(100)", "TEXT", "CLOB", "TINYTEXT",
		"BLOB", "LONGBLOB", "",
		"REAL", "DOUBLE", "DOUBLE PRECISION", "FLOAT",
		"NUMERIC", "DECIMAL(10,5)", "BOOLEAN", "DATE", "DATETIME",
		// Names another engine reads otherwise.
		"STRING", "FLOATING POINT", "CHARINT", "POINT", "INTERVAL", "TIME", "TIMESTAMP", "JSON", "UUID", "BYTEA", "MONEY", "NAME", "CITEXT", "YEAR",
	}
	var cols, fives, texts []string
	for i, ty := range types {
		cols = append(cols, fmt.Sprintf("c%d %s", i, ty))
		fives = append(fives, "5")
		texts = append(texts, "'5'")
	}
	ddl := "CREATE TABLE t (" + strings.Join(cols, ", ") + ")"
	path, db := sqliteFile(t, ddl)
	ctx := context.Background()
	fromFile, err := sqlitefile.Load(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	fromText, err := catalog.LoadDDL(ddl, catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("INSERT INTO t VALUES (" + strings.Join(texts, ", ") + "), (" + strings.Join(fives, ", ") + ")"); err != nil {
		t.Fatal(err)
	}
	for i, ty := range types {
		var fromString, fromInt string
		q := fmt.Sprintf("SELECT (SELECT typeof(c%d) FROM t WHERE rowid = 1), (SELECT typeof(c%d) FROM t WHERE rowid = 2)", i, i)
		if err := db.QueryRow(q).Scan(&fromString, &fromInt); err != nil {
			t.Fatal(err)
		}
		var engine string
		switch {
		case fromString == "integer" && fromInt == "integer":
			engine = "numeric"
		case fromString == "real" && fromInt == "real":
			engine = "real"
		case fromString == "text" && fromInt == "text":
			engine = "text"
		case fromString == "text" && fromInt == "integer":
			engine = "blob"
		default:
			t.Fatalf("%q: typeof '5' %s, 5 %s", ty, fromString, fromInt)
		}
		text := fromText.Tables[0].Columns[i].Type
		file := fromFile.Tables[0].Columns[i].Type
		if affinityOf(text) != engine || affinityOf(file) != engine {
			t.Errorf("%q: SQLite's affinity is %s; the DDL reader says %s (%v), the file reader %s (%v)", ty, engine, affinityOf(text), text, affinityOf(file), file)
		}
	}
}

// TestSQLiteRowidAliasMatchesEngine is issue 33 item 11: only a rowid
// table's lone column declared exactly INTEGER PRIMARY KEY (ASC or no
// order; in a column or a table constraint) is the rowid's alias, which
// never holds NULL and holds only integers. A WITHOUT ROWID table's key,
// INTEGER PRIMARY KEY DESC, INTEGER(11), UNSIGNED INTEGER, INT and
// BIGINT keys are not: SQLite stores 5.5 in them, and NULL where the
// table has a rowid. The DDL reader and the file reader say the same,
// and SQLite shows it.
func TestSQLiteRowidAliasMatchesEngine(t *testing.T) {
	cases := []struct {
		ddl   string
		alias bool // what SQLite's documentation says; the engine checks it below
	}{
		{"CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)", true},
		{"CREATE TABLE t (k integer primary key asc, v TEXT)", true},
		{"CREATE TABLE t (k INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT)", true},
		{"CREATE TABLE t (k INTEGER NOT NULL, v TEXT, PRIMARY KEY (k DESC))", true},
		{"CREATE TABLE t (k INTEGER PRIMARY KEY DESC, v TEXT)", false},
		{"CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT) WITHOUT ROWID", false},
		{"CREATE TABLE t (k INTEGER(11) PRIMARY KEY, v TEXT)", false},
		{"CREATE TABLE t (k UNSIGNED INTEGER PRIMARY KEY, v TEXT)", false},
		{"CREATE TABLE t (k INTEGER UNSIGNED PRIMARY KEY, v TEXT)", false},
		{"CREATE TABLE t (k INT PRIMARY KEY, v TEXT)", false},
		{"CREATE TABLE t (k BIGINT PRIMARY KEY, v TEXT)", false},
		{"CREATE TABLE t (k INTEGER, v INTEGER, PRIMARY KEY (k, v))", false},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.ddl, func(t *testing.T) {
			path, db := sqliteFile(t, c.ddl)
			file, err := sqlitefile.Load(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			text, err := catalog.LoadDDL(c.ddl, catalog.SQLite)
			if err != nil {
				t.Fatalf("the DDL reader refuses it: %v", err)
			}
			type facts struct {
				notNull, integerOnly, alias bool
				pk                          []int
				keys                        [][]int
			}
			read := func(s *catalog.Schema) facts {
				tb := s.Table("t")
				return facts{tb.Columns[0].NotNull, tb.IntegerOnly(catalog.SQLite, 0), tb.RowIDAlias() == 0, tb.PrimaryKey, tb.Keys()}
			}
			ft, ff := read(text), read(file.Schema)
			if ft.alias != c.alias {
				t.Errorf("RowIDAlias says alias %v", ft.alias)
			}
			if ft.notNull != ff.notNull || ft.integerOnly != ff.integerOnly || ft.alias != ff.alias || !slices.Equal(ft.pk, ff.pk) || fmt.Sprint(ft.keys) != fmt.Sprint(ff.keys) {
				t.Errorf("the DDL reader says %+v, the file reader %+v", ft, ff)
			}
			// The engine: does k keep a NULL, does it keep 5.5?
			holds := func(v, want string) bool {
				if _, err := db.Exec("DELETE FROM t"); err != nil {
					t.Fatal(err)
				}
				if _, err := db.Exec("INSERT INTO t (k, v) VALUES (" + v + ", 1)"); err != nil {
					return false
				}
				var n int
				if err := db.QueryRow("SELECT count(*) FROM t WHERE typeof(k) = '" + want + "'").Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n == 1
			}
			null, real := holds("NULL", "null"), holds("5.5", "real")
			if null != !c.alias && !strings.Contains(c.ddl, "WITHOUT ROWID") || real == c.alias {
				t.Fatalf("SQLite keeps NULL %v, 5.5 %v: the case's alias %v is wrong", null, real, c.alias)
			}
			if ft.notNull == null || ft.integerOnly == real {
				t.Errorf("SQLite keeps NULL %v, 5.5 %v; the DDL reader says NOT NULL %v, integers only %v", null, real, ft.notNull, ft.integerOnly)
			}
			if !slices.Equal(ft.pk, []int{0}) && !slices.Equal(ft.pk, []int{0, 1}) {
				t.Errorf("primary key %v", ft.pk)
			}
		})
	}
}
