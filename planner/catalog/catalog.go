// Package catalog holds the schema a query is planned against: tables,
// columns, their types and the constraints the equivalence rules rely on.
// It never sees table data.
package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
)

// Dialect selects identifier and operator rules of the SQL being planned.
type Dialect int

const (
	// Postgres follows PostgreSQL: unquoted names fold to lower case and
	// quoted names match exactly.
	Postgres Dialect = iota
	// SQLite is the lenient text-to-SQL dialect: names match without regard
	// to case, quoted or not.
	SQLite
)

// ParseDialect maps a dialect name ("postgres", "sqlite") to a Dialect.
func ParseDialect(s string) (Dialect, error) {
	switch strings.ToLower(s) {
	case "", "postgres", "postgresql", "pg":
		return Postgres, nil
	case "sqlite", "sqlite3":
		return SQLite, nil
	}
	return 0, fmt.Errorf("catalog: unknown dialect %q (want postgres or sqlite)", s)
}

func (d Dialect) String() string {
	if d == SQLite {
		return "sqlite"
	}
	return "postgres"
}

// Type is the coarse type family the planner reasons with. Finer
// distinctions (varchar lengths, int widths) never change equivalence
// decisions the rules make, so they are folded here.
type Type uint8

// Type families.
const (
	Unknown Type = iota
	Int
	Numeric
	Float
	Text
	Bool
	Date
	Timestamp
	Time
	Interval
	Bytes
	JSON
	UUID
	Null // the type of a bare NULL literal
)

var typeNames = [...]string{"unknown", "int", "numeric", "float", "text", "bool", "date", "timestamp", "time", "interval", "bytea", "json", "uuid", "null"}

func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "unknown"
}

// IsNumeric reports whether values of t compare as numbers.
func (t Type) IsNumeric() bool { return t == Int || t == Numeric || t == Float }

// EqualsAlike says whether = between values of types a and b is one
// equivalence relation, so that values equal to one value equal each
// other and a key names at most one row through it: one type, or numbers
// of any type. Across kinds it is not: SQLite compares a text column with
// a number by reading the text as a number, so the distinct keys '1' and
// '1.0' both equal 1.
func EqualsAlike(a, b Type) bool { return a == b || (a.IsNumeric() && b.IsNumeric()) }

// TypeFromName maps a SQL type name to its family.
func TypeFromName(name string) Type {
	n := strings.ToLower(strings.TrimSpace(name))
	if i := strings.IndexByte(n, '('); i >= 0 {
		n = strings.TrimSpace(n[:i])
	}
	switch n {
	case "int", "int2", "int4", "int8", "integer", "smallint", "bigint", "serial", "bigserial", "smallserial", "tinyint", "mediumint":
		return Int
	case "numeric", "decimal", "number":
		return Numeric
	case "real", "float", "float4", "float8", "double", "double precision", "double_precision":
		return Float
	case "text", "varchar", "character varying", "char", "character", "bpchar", "name", "string", "clob", "nvarchar", "nchar", "citext":
		return Text
	case "bool", "boolean":
		return Bool
	case "date":
		return Date
	case "timestamp", "timestamptz", "datetime", "timestamp without time zone", "timestamp with time zone":
		return Timestamp
	case "time", "timetz", "time without time zone", "time with time zone":
		return Time
	case "interval":
		return Interval
	case "bytea", "blob":
		return Bytes
	case "json", "jsonb":
		return JSON
	case "uuid":
		return UUID
	}
	return Unknown
}

// Column is one column of a table.
type Column struct {
	Name    string
	Type    Type
	TypeSQL string // the declared type as written, for display
	NotNull bool   // declared NOT NULL or part of the primary key
	Ordinal int    // position in the table, from 0

	// Generated is the expression of a GENERATED ALWAYS AS (...) STORED
	// column, as SQL over the table's other columns; empty for ordinary
	// columns. The engine computes it: a generator never writes it.
	Generated string
	// Collation is the declared collation ("C", "nocase", an ICU name);
	// empty for the default.
	Collation string
	// Nondeterministic says the column's collation makes = something other
	// than identity (SQLite NOCASE/RTRIM, a PostgreSQL collation created
	// with deterministic = false): equal values may be told apart, so no
	// rule may substitute one for the other.
	Nondeterministic bool
	// Enum lists the labels of the column's enum type in their declared
	// order, which is the order < compares them in; nil for other types.
	Enum []string
	// Domain names the domain the column was declared with; its NOT NULL
	// is in NotNull and its CHECKs in the table's Checks.
	Domain string
}

// ForeignKey says Columns of the owning table reference RefColumns of
// RefTable.
type ForeignKey struct {
	Columns    []int // ordinals in the owning table
	RefTable   string
	RefColumns []int // ordinals in RefTable
}

// Check is a CHECK constraint (a column's, a table's, or a domain's,
// with the domain's VALUE replaced by the column): a row is legal when
// Expr is true or NULL.
type Check struct {
	Name string // the constraint's name, "" when unnamed
	Expr string // a boolean SQL expression over the table's columns
}

// UniqueIndex is a unique index that is not a plain key: one on
// expressions, or a partial one. No two rows for which Where holds (all
// rows when Where is empty) have the same non-NULL values of Exprs.
type UniqueIndex struct {
	Name    string
	Exprs   []string // each indexed element as SQL; a plain column is its name
	Columns []int    // the ordinal of each element that is a plain column, -1 for an expression
	Where   string   // the partial index's predicate as SQL; empty when total
}

// Table is a base table or a view.
type Table struct {
	Name    string
	Columns []Column
	// PrimaryKey holds column ordinals; nil when the table has none.
	PrimaryKey []int
	// Unique holds each UNIQUE constraint's ordinals. A unique set is a key
	// only where its columns are also NOT NULL; the planner checks that.
	Unique      [][]int
	ForeignKeys []ForeignKey
	// ViewSQL is the defining query of a view; empty for tables.
	ViewSQL string
	// ViewColumns renames the view's output columns when given.
	ViewColumns []string

	// Checks are the CHECK constraints every row satisfies (not NULL-false).
	Checks []Check
	// UniqueIndexes are the expression and partial unique indexes. They
	// are not keys: a rule may use a partial one only under its predicate.
	UniqueIndexes []UniqueIndex
	// DeferrableKeys are PRIMARY KEY and UNIQUE constraints declared
	// DEFERRABLE, and DeferrableForeignKeys such foreign keys: inside a
	// transaction they may be violated until commit, so they are not in
	// PrimaryKey, Unique or ForeignKeys, which rules trust. A generator
	// may still honour them (a committed state does).
	DeferrableKeys        [][]int
	DeferrableForeignKeys []ForeignKey
	// Inherits names the tables this one inherits from (INHERITS) or the
	// partitioned table it is a partition of (PARTITION OF). A scan of a
	// parent reads its children's rows too; a key holds per table.
	Inherits []string
	// PartitionBound is a partition's bound as a boolean SQL expression
	// over its columns; empty for other tables.
	PartitionBound string
	// Partitioned says the table is declared PARTITION BY: it holds no
	// rows of its own, only its partitions' rows.
	Partitioned bool
	// Unmodelled lists what the catalog knows it does not model about the
	// table (a constraint it could not read, a row-level policy, ...),
	// each with where it was declared. A verdict that reads the table is
	// not proved and not refuted while this is non-empty.
	Unmodelled []string

	// Strict says a SQLite table is declared STRICT: each column holds
	// only values of its declared type (INTEGER, REAL, TEXT, BLOB or ANY)
	// or NULL. An ordinary SQLite table's column holds any storage class
	// (an INTEGER column keeps 5.5 and 'abc' as given).
	Strict bool
	// WithoutRowID says a SQLite table is declared WITHOUT ROWID: an
	// INTEGER PRIMARY KEY column is then no alias of the rowid and holds
	// what any INTEGER column may.
	WithoutRowID bool
	// IntegerKeyDesc says a SQLite table's PRIMARY KEY was declared as a
	// column constraint with DESC (INTEGER PRIMARY KEY DESC): SQLite
	// does not make that column the rowid's alias (a quirk it keeps), so
	// it holds NULLs and non-integers as any key column of a rowid table.
	IntegerKeyDesc bool
}

// IntegerOnly says column ord of t holds only integers (or NULL) in
// dialect d: any integer column in PostgreSQL; in SQLite an INTEGER
// column of a STRICT table, or an INTEGER PRIMARY KEY of a rowid table
// (the rowid alias, which refuses anything but an integer). Any other
// SQLite column with integer affinity converts what it can to an
// integer and keeps the rest as given: 5.5 stays REAL, 'abc' TEXT.
// INTEGER PRIMARY KEY DESC (IntegerKeyDesc) is no alias, nor is any
// key of a WITHOUT ROWID table, nor a column declared INTEGER(11) or
// UNSIGNED INTEGER (its declared type is not exactly INTEGER).
func (t *Table) IntegerOnly(d Dialect, ord int) bool {
	if ord < 0 || ord >= len(t.Columns) || t.Columns[ord].Type != Int {
		return false
	}
	if d != SQLite {
		return true
	}
	if t.Strict || t.checksInteger(ord) {
		return true
	}
	return !t.IsView() && len(t.PrimaryKey) == 1 && t.PrimaryKey[0] == ord && t.rowidAlias(t.PrimaryKey)
}

// RowIDAlias returns the ordinal of the column of SQLite table t that is
// the rowid's alias (see rowidAlias), or -1 when it has none.
func (t *Table) RowIDAlias() int {
	if !t.IsView() && len(t.PrimaryKey) == 1 && t.rowidAlias(t.PrimaryKey) {
		return t.PrimaryKey[0]
	}
	return -1
}

// rowidAlias says a SQLite table whose primary key is ords makes it the
// rowid's alias: a rowid table's lone column declared exactly INTEGER,
// without DESC.
func (t *Table) rowidAlias(ords []int) bool {
	return !t.WithoutRowID && !t.IntegerKeyDesc && len(ords) == 1 &&
		strings.EqualFold(strings.TrimSpace(t.Columns[ords[0]].TypeSQL), "integer")
}

// checksInteger reports whether a CHECK keeps column ord to integers:
// CHECK (typeof(x) = 'integer'), or typeof(x) IN ('integer', 'null').
func (t *Table) checksInteger(ord int) bool {
	name := strings.ToLower(t.Columns[ord].Name)
	for _, c := range t.Checks {
		e := strings.ToLower(strings.Join(strings.Fields(c.Expr), ""))
		e = strings.TrimSuffix(strings.TrimPrefix(e, "("), ")")
		for _, arg := range []string{name, `"` + name + `"`, "`" + name + "`", "[" + name + "]"} {
			call := "typeof(" + arg + ")"
			switch e {
			case call + "='integer'", "'integer'=" + call, call + "in('integer')", call + "in('integer','null')", call + "in('null','integer')":
				return true
			}
		}
	}
	return false
}

// IsView reports whether the table is a view that expands when referenced.
func (t *Table) IsView() bool { return t.ViewSQL != "" }

// Schema is a set of tables with name resolution for one dialect.
type Schema struct {
	Dialect Dialect
	Tables  []*Table
	byName  map[string]*Table
	fp      string
}

// NewSchema indexes tables for lookup. Table names must be unique under
// the dialect's matching rule.
func NewSchema(d Dialect, tables []*Table) (*Schema, error) {
	s := &Schema{Dialect: d, Tables: tables, byName: make(map[string]*Table, len(tables))}
	for _, t := range tables {
		k := s.key(t.Name)
		if _, dup := s.byName[k]; dup {
			return nil, fmt.Errorf("catalog: table %q declared twice", t.Name)
		}
		s.byName[k] = t
	}
	for _, t := range tables {
		for _, fk := range t.ForeignKeys {
			ref := s.Table(fk.RefTable)
			if ref == nil {
				return nil, fmt.Errorf("catalog: table %s: foreign key references unknown table %q", t.Name, fk.RefTable)
			}
			if len(fk.RefColumns) == 0 {
				continue
			}
			if len(fk.RefColumns) != len(fk.Columns) {
				return nil, fmt.Errorf("catalog: table %s: foreign key to %s has %d columns but references %d", t.Name, ref.Name, len(fk.Columns), len(fk.RefColumns))
			}
		}
	}
	s.fp = s.computeFingerprint()
	return s, nil
}

func (s *Schema) key(name string) string {
	if s.Dialect == SQLite {
		return strings.ToLower(name)
	}
	return name
}

// Table finds a table or view by name under the dialect's rules; nil when
// there is none.
func (s *Schema) Table(name string) *Table {
	if t, ok := s.byName[s.key(name)]; ok {
		return t
	}
	return nil
}

// Column finds a column of t by name under the dialect's rules.
func (s *Schema) Column(t *Table, name string) (Column, bool) {
	for _, c := range t.Columns {
		if s.NameEqual(c.Name, name) {
			return c, true
		}
	}
	return Column{}, false
}

// NameEqual compares two identifiers under the dialect's rules.
func (s *Schema) NameEqual(a, b string) bool {
	if s.Dialect == SQLite {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// Fingerprint is a stable hash of everything in the schema that planning
// depends on. Two schemas with the same fingerprint plan queries alike.
func (s *Schema) Fingerprint() string { return s.fp }

func (s *Schema) computeFingerprint() string {
	h := sha256.New()
	fmt.Fprintf(h, "dialect=%s\n", s.Dialect)
	tables := append([]*Table(nil), s.Tables...)
	sort.Slice(tables, func(i, j int) bool { return tables[i].Name < tables[j].Name })
	for _, t := range tables {
		fmt.Fprintf(h, "table %q view=%q %q\n", t.Name, t.ViewSQL, t.ViewColumns)
		for _, c := range t.Columns {
			fmt.Fprintf(h, " col %q %s %q notnull=%v gen=%q coll=%q/%v enum=%q domain=%q\n", c.Name, c.Type, c.TypeSQL, c.NotNull, c.Generated, c.Collation, c.Nondeterministic, c.Enum, c.Domain)
		}
		fmt.Fprintf(h, " pk %v unique %v deferrable %v\n", t.PrimaryKey, t.Unique, t.DeferrableKeys)
		for _, fk := range t.ForeignKeys {
			fmt.Fprintf(h, " fk %v -> %q %v\n", fk.Columns, fk.RefTable, fk.RefColumns)
		}
		for _, fk := range t.DeferrableForeignKeys {
			fmt.Fprintf(h, " deferrable fk %v -> %q %v\n", fk.Columns, fk.RefTable, fk.RefColumns)
		}
		for _, c := range t.Checks {
			fmt.Fprintf(h, " check %q\n", c.Expr)
		}
		for _, u := range t.UniqueIndexes {
			fmt.Fprintf(h, " unique index %q %v where %q\n", u.Exprs, u.Columns, u.Where)
		}
		fmt.Fprintf(h, " inherits %q bound %q partitioned=%v unmodelled %q\n", t.Inherits, t.PartitionBound, t.Partitioned, t.Unmodelled)
		if t.Strict || t.WithoutRowID {
			fmt.Fprintf(h, " strict=%v withoutrowid=%v\n", t.Strict, t.WithoutRowID)
		}
		if t.IntegerKeyDesc {
			fmt.Fprintf(h, " integerkeydesc\n")
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// sqlitePrimaryKey records the PRIMARY KEY ords of a SQLite table t as
// SQLite enforces it. Only the rowid alias (a lone column declared
// INTEGER) and the columns of a WITHOUT ROWID table are NOT NULL by
// being the key; any other key column of a rowid table may hold NULLs
// (SQLite keeps this legacy behaviour), which are distinct there: its
// NotNull stays what was declared, and Keys counts the key only where
// every column is NOT NULL, as for UNIQUE.
func sqlitePrimaryKey(t *Table, ords []int) {
	if t.rowidAlias(ords) || t.WithoutRowID {
		for _, o := range ords {
			t.Columns[o].NotNull = true
		}
	}
	t.PrimaryKey = ords
}

// SetSQLitePrimaryKey is sqlitePrimaryKey for loaders that read a SQLite
// database's own catalog (planner/catalog/sqlitefile); NotNull must hold
// what the table declared, not what the key implies.
func SetSQLitePrimaryKey(t *Table, ords []int) { sqlitePrimaryKey(t, ords) }

// Children returns the tables that inherit from t or are its
// partitions, in declaration order.
func (s *Schema) Children(t *Table) []*Table {
	var out []*Table
	for _, c := range s.Tables {
		for _, p := range c.Inherits {
			if s.NameEqual(p, t.Name) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// Keys returns the table's candidate keys usable for uniqueness: the
// primary key and every UNIQUE set whose columns are all NOT NULL.
func (t *Table) Keys() [][]int {
	var keys [][]int
	// A PRIMARY KEY is NOT NULL everywhere but in a SQLite rowid table
	// (see sqlitePrimaryKey), where it is a key only as UNIQUE is.
	for _, u := range append([][]int{t.PrimaryKey}, t.Unique...) {
		if len(u) == 0 {
			continue
		}
		ok := true
		for _, o := range u {
			if !t.Columns[o].NotNull {
				ok = false
				break
			}
		}
		if ok {
			keys = append(keys, u)
		}
	}
	return keys
}
