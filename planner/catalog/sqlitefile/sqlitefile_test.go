package sqlitefile

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// create writes a SQLite database file holding ddl (and no rows).
func create(t *testing.T, dir, name, ddl string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ddl); err != nil {
		t.Fatalf("ddl: %v", err)
	}
	return path
}

// Spider's flight_2 as its SQLite file declares it: single-quoted table
// names, a composite primary key that tables.json flattens.
const flight2 = `
CREATE TABLE 'airlines' (uid INTEGER PRIMARY KEY, Airline TEXT, Abbreviation TEXT, Country TEXT);
CREATE TABLE 'airports' (City TEXT, AirportCode TEXT PRIMARY KEY, AirportName TEXT, Country TEXT, CountryAbbrev TEXT);
CREATE TABLE 'flights' (
	Airline INTEGER, FlightNo INTEGER, SourceAirport TEXT, DestAirport TEXT,
	PRIMARY KEY(Airline, FlightNo),
	FOREIGN KEY (SourceAirport) REFERENCES airports(AirportCode),
	FOREIGN KEY (DestAirport) REFERENCES airports(AirportCode)
);
CREATE TABLE ` + "`Tickets`" + ` (id INTEGER PRIMARY KEY AUTOINCREMENT, airline INTEGER NOT NULL, flightno INTEGER NOT NULL,
	seat varchar(4), code TEXT UNIQUE,
	FOREIGN KEY (airline, flightno) REFERENCES flights,
	FOREIGN KEY (seat) REFERENCES nowhere(x),
	FOREIGN KEY (code) REFERENCES airports(NoSuchColumn));
CREATE UNIQUE INDEX tickets_seat ON Tickets (flightno, seat);
CREATE VIEW long_names (name) AS SELECT AirportName FROM airports WHERE length(AirportName) > 20;
`

func TestLoad(t *testing.T) {
	path := create(t, t.TempDir(), "flight_2.sqlite", flight2)
	s, err := Load(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Dialect != catalog.SQLite {
		t.Errorf("dialect %v, want sqlite", s.Dialect)
	}
	flights := s.Table("FLIGHTS")
	if flights == nil {
		t.Fatal("no table flights")
	}
	if !reflect.DeepEqual(flights.PrimaryKey, []int{0, 1}) {
		t.Errorf("flights primary key %v, want the composite [0 1]", flights.PrimaryKey)
	}
	// A rowid table's composite key may hold NULLs in SQLite (the engine
	// below accepts them, twice): its columns are not NOT NULL and it is
	// no key for the rules; the rowid alias is both.
	if flights.Columns[0].NotNull || flights.Columns[2].NotNull || len(flights.Keys()) != 0 {
		t.Errorf("flights NOT NULL: key columns of a rowid table may hold NULL: %+v, keys %v", flights.Columns, flights.Keys())
	}
	if a := s.Table("airlines"); !a.Columns[0].NotNull || len(a.Keys()) != 1 {
		t.Errorf("airlines: the rowid alias is NOT NULL and a key: %+v", a.Columns)
	}
	{
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = db.Exec(`INSERT INTO flights (Airline, FlightNo) VALUES (NULL, 1), (NULL, 1)`)
		db.Close()
		if err != nil {
			t.Errorf("SQLite refuses NULLs in a rowid table's primary key: %v", err)
		}
	}
	if len(flights.ForeignKeys) != 2 || flights.ForeignKeys[0].RefTable != "airports" || !reflect.DeepEqual(flights.ForeignKeys[1].RefColumns, []int{1}) {
		t.Errorf("flights foreign keys %+v", flights.ForeignKeys)
	}
	if c := flights.Columns[0]; c.Type != catalog.Int || c.TypeSQL != "INTEGER" {
		t.Errorf("flights.Airline type %v %q", c.Type, c.TypeSQL)
	}
	tk := s.Table("tickets")
	if tk == nil {
		t.Fatal("no table tickets")
	}
	if !reflect.DeepEqual(tk.PrimaryKey, []int{0}) {
		t.Errorf("tickets primary key %v", tk.PrimaryKey)
	}
	if len(tk.ForeignKeys) != 1 || !reflect.DeepEqual(tk.ForeignKeys[0], catalog.ForeignKey{Columns: []int{1, 2}, RefTable: "flights", RefColumns: []int{0, 1}}) {
		t.Errorf("tickets foreign keys %+v, want the composite one to flights' primary key", tk.ForeignKeys)
	}
	if !reflect.DeepEqual(tk.Unique, [][]int{{4}, {2, 3}}) && !reflect.DeepEqual(tk.Unique, [][]int{{2, 3}, {4}}) {
		t.Errorf("tickets unique %v", tk.Unique)
	}
	if len(s.Dropped) != 2 || !strings.Contains(strings.Join(s.Dropped, "\n"), "nowhere: no such table") || !strings.Contains(strings.Join(s.Dropped, "\n"), "NoSuchColumn") {
		t.Errorf("dropped %q, want the two foreign keys that cannot hold", s.Dropped)
	}
	v := s.Table("long_names")
	if v == nil || !v.IsView() || !strings.HasPrefix(v.ViewSQL, "SELECT AirportName") || !reflect.DeepEqual(v.ViewColumns, []string{"name"}) {
		t.Errorf("view %+v", v)
	}
}

func TestLoadReadsNoRowsAndWritesNothing(t *testing.T) {
	dir := t.TempDir()
	path := create(t, dir, "x.sqlite", `CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT); INSERT INTO t VALUES (1, 'secret');`)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Load(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	entries, _ := os.ReadDir(dir)
	if string(before) != string(after) || len(entries) != 1 {
		t.Errorf("Load changed the directory: %d entries, file changed %v", len(entries), string(before) != string(after))
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "text.sqlite")
	if err := os.WriteFile(notDB, []byte("CREATE TABLE t (a int);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := create(t, dir, "empty.sqlite", `CREATE TABLE t (a int); DROP TABLE t;`)
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "missing.sqlite"), "no such file"},
		{notDB, "text.sqlite"},
		{empty, "no tables"},
	} {
		_, err := Load(context.Background(), tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%s) = %v, want an error containing %q", tc.path, err, tc.want)
		}
	}
}

func TestViewBody(t *testing.T) {
	for _, tc := range []struct{ ddl, want string }{
		{"CREATE VIEW v AS SELECT 1", "SELECT 1"},
		{"CREATE VIEW \"has as\" (a, b) AS\nSELECT x AS a, y FROM t;", "SELECT x AS a, y FROM t"},
		{"create view v as(select 1)", "(select 1)"},
	} {
		got, ok := viewBody(tc.ddl)
		if !ok || got != tc.want {
			t.Errorf("viewBody(%q) = %q, %v; want %q", tc.ddl, got, ok, tc.want)
		}
	}
}

// TestLoadCollationsAndChecks: the collations and CHECKs the pragmas do
// not report are read from each table's DDL, and SQLite really compares
// a NOCASE column without regard to case and refuses a row its CHECK
// rejects.
func TestLoadCollationsAndChecks(t *testing.T) {
	path := create(t, t.TempDir(), "c.sqlite", "CREATE TABLE `Person` (\n"+
		"  id INTEGER PRIMARY KEY AUTOINCREMENT,\n"+
		"  [name] TEXT COLLATE NOCASE NOT NULL,\n"+
		"  code TEXT COLLATE BINARY,\n"+
		"  pad TEXT COLLATE RTRIM,\n"+
		"  age int(11) CHECK (age >= 0),\n"+
		"  CHECK (length(code) < 5)\n"+
		");\n"+
		"CREATE TABLE odd (a TEXT COLLATE NOCASE, b TEXT CHECK (b GLOB 'x*'));\n"+
		"CREATE TABLE untyped (a TEXT COLLATE NOCASE, b);\n"+
		"CREATE UNIQUE INDEX person_lower ON Person (lower(name));\n"+
		"CREATE UNIQUE INDEX person_code ON Person (code) WHERE age > 3;\n"+
		"CREATE UNIQUE INDEX person_pad ON Person (pad);\n")
	s, err := Load(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	p := s.Table("person")
	c := p.Columns
	if !c[1].Nondeterministic || c[2].Nondeterministic || c[2].Collation != "" || !c[3].Nondeterministic {
		t.Errorf("collations %+v", c)
	}
	var checks []string
	for _, ck := range p.Checks {
		checks = append(checks, ck.Expr)
	}
	if !reflect.DeepEqual(checks, []string{"age >= 0", "length(code) < 5"}) {
		t.Errorf("checks %q", checks)
	}
	if len(p.UniqueIndexes) != 2 || p.UniqueIndexes[0].Exprs[0] != "code" || p.UniqueIndexes[0].Where != "age > 3" ||
		p.UniqueIndexes[1].Exprs[0] != "lower(name)" || len(p.Unique) != 1 {
		t.Errorf("unique indexes %+v, unique %v", p.UniqueIndexes, p.Unique)
	}
	// A CHECK in SQLite's own syntax (GLOB), which PostgreSQL's grammar
	// refuses: the DDL does not parse, its COLLATE is unknown, so the
	// table is not modelled.
	if o := s.Table("odd"); len(o.Unmodelled) != 1 {
		t.Errorf("odd: unmodelled %q", o.Unmodelled)
	}
	// A column without a type parses (it has none), and the COLLATE of
	// its neighbour is read.
	if u := s.Table("untyped"); len(u.Unmodelled) != 0 || !u.Columns[0].Nondeterministic || u.Columns[1].Type != catalog.Unknown {
		t.Errorf("untyped: unmodelled %q, columns %+v", u.Unmodelled, u.Columns)
	}
	// The engine's side: NOCASE makes = ignore case, the CHECK holds.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO Person (name, code, pad, age) VALUES ('Ann', 'x', 'p', 1)`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM Person WHERE name = 'ANN' AND pad = 'p  '`).Scan(&n); err != nil || n != 1 {
		t.Errorf("NOCASE/RTRIM on SQLite: %d %v", n, err)
	}
	if _, err := db.Exec(`INSERT INTO Person (name, code, pad, age) VALUES ('Bob', 'x', 'p', -1)`); err == nil {
		t.Error("SQLite accepted a row its CHECK rejects")
	}
}

// TestLoadStrictAndRowidAlias: STRICT and WITHOUT ROWID are read, and
// decide which INTEGER columns hold only integers — checked by storing
// 5.5 into each on the real engine.
func TestLoadStrictAndRowidAlias(t *testing.T) {
	ddl := `CREATE TABLE loose (id INTEGER PRIMARY KEY, n INTEGER);
CREATE TABLE tight (id INTEGER PRIMARY KEY, n INTEGER) STRICT;
CREATE TABLE norowid (id INTEGER PRIMARY KEY, n INTEGER) WITHOUT ROWID;`
	path := create(t, t.TempDir(), "x.sqlite", ddl)
	s, err := Load(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, c := range []struct {
		table string
		ord   int
	}{{"loose", 0}, {"loose", 1}, {"tight", 0}, {"tight", 1}, {"norowid", 0}, {"norowid", 1}} {
		tab := s.Table(c.table)
		col := tab.Columns[c.ord].Name
		// The engine's truth: does the column refuse or convert 5.5?
		_, err := db.Exec(`INSERT INTO `+c.table+` (id, n) VALUES (?, ?)`, map[bool]any{true: 5.5, false: 100 + c.ord}[c.ord == 0], map[bool]any{true: 5.5, false: 7}[c.ord == 1])
		holdsReal := false
		if err == nil {
			var typ string
			if err := db.QueryRow(`SELECT typeof(` + col + `) FROM ` + c.table + ` WHERE typeof(` + col + `) = 'real'`).Scan(&typ); err == nil {
				holdsReal = true
			}
		}
		if got := tab.IntegerOnly(catalog.SQLite, c.ord); got == holdsReal {
			t.Errorf("%s.%s: IntegerOnly %v, but the engine stores 5.5 as REAL: %v (insert error %v)", c.table, col, got, holdsReal, err)
		}
		if !tab.IntegerOnly(catalog.Postgres, c.ord) {
			t.Errorf("%s.%s: not IntegerOnly in PostgreSQL", c.table, col)
		}
	}
}

// TestLoadGeneratedColumns: generated columns are columns (SELECT *
// returns them; table_info does not list them), in declaration order,
// each with its expression; where the DDL cannot be read for the
// expression, the table is not modelled rather than read with a free
// column.
func TestLoadGeneratedColumns(t *testing.T) {
	path := create(t, t.TempDir(), "g.sqlite", `CREATE TABLE g (a INT, s INT GENERATED ALWAYS AS (a * 2) STORED, v AS (a + 1), b TEXT);
CREATE TABLE h (a INT, b TEXT CHECK (b GLOB 'x*'), c AS (a + 1));
CREATE VIRTUAL TABLE f USING fts5(x, y);`)
	s, err := Load(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	g := s.Table("g")
	var got []string
	for _, c := range g.Columns {
		got = append(got, c.Name+"="+c.Generated)
	}
	if want := []string{"a=", "s=a * 2", "v=a + 1", "b="}; !reflect.DeepEqual(got, want) || len(g.Unmodelled) != 0 {
		t.Errorf("g: columns %q, want %q; unmodelled %q", got, want, g.Unmodelled)
	}
	h := s.Table("h")
	if len(h.Columns) != 3 || len(h.Unmodelled) == 0 || !strings.Contains(strings.Join(h.Unmodelled, ";"), "generated") {
		t.Errorf("h: columns %+v, unmodelled %q", h.Columns, h.Unmodelled)
	}
	// A virtual table's hidden columns are not in SELECT *; its own are.
	if f := s.Table("f"); f == nil || len(f.Columns) != 2 {
		t.Errorf("fts5 table: %+v", f)
	}
}
