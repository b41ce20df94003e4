package campaign

import (
	"strings"
)

// The campaign never reads the product's catalog to decide what to
// generate or how to check it: the query generator and the independent
// row generator work from what the real engine itself reports about the
// schema (pg_catalog, SQLite's pragmas). Only the judge and the refuter's
// generator see catalog.LoadDDL's reading of the same DDL.

// category is a column's type as the generators treat it.
type category string

const (
	catInt       category = "int"      // integer, bigint
	catSmallint  category = "smallint" // range errors at ±32767
	catNumeric   category = "numeric"  // numeric, numeric(p,s), a domain over one
	catReal      category = "real"     // float4
	catFloat8    category = "float8"   // double precision
	catText      category = "text"     // text, varchar(n)
	catBpchar    category = "bpchar"   // char(n)
	catBool      category = "bool"
	catDate      category = "date"
	catTimestamp category = "timestamp"
	catTstz      category = "timestamptz"
	catInterval  category = "interval"
	catJSON      category = "json"
	catJSONB     category = "jsonb"
	catEnum      category = "enum"
	catAny       category = "any" // a SQLite column without a type
)

// numeric reports whether values compare as numbers.
func (c category) numeric() bool {
	switch c {
	case catInt, catSmallint, catNumeric, catReal, catFloat8:
		return true
	}
	return false
}

// textual reports whether values compare as strings.
func (c category) textual() bool { return c == catText || c == catBpchar || c == catEnum }

// mcol is a column as the engine reports it.
type mcol struct {
	name     string
	sqlType  string // as the engine writes it: format_type, or SQLite's declared type
	cat      category
	notNull  bool
	gen      bool   // generated: never written
	genExpr  string // a generated column's expression
	collate  string // a non-default collation, "" for none
	nondet   bool   // the collation is not identity (ICU non-deterministic, NOCASE, RTRIM)
	enum     []string
	maxLen   int // varchar(n)/char(n) length, 0 when unbounded
	domainCk []string
}

// mfk is a foreign key as the engine reports it.
type mfk struct {
	cols, refCols []string
	ref           string
	deferrable    bool
}

// mtable is a table as the engine reports it.
type mtable struct {
	name        string
	cols        []mcol
	pk          []string
	uniques     [][]string
	fks         []mfk
	checks      []string // boolean SQL over the table's columns
	parent      string   // INHERITS parent or partitioned parent
	partitioned bool     // holds no rows of its own
}

// mview is a view as the engine reports it: the columns it returns
// (PostgreSQL freezes a SELECT * when the view is created).
type mview struct {
	name string
	cols []string
}

// meta is a schema as the engine reports it.
type meta struct {
	tables []*mtable
	views  []mview
}

func (m *meta) table(name string) *mtable {
	for _, t := range m.tables {
		if strings.EqualFold(t.name, name) {
			return t
		}
	}
	return nil
}

func (t *mtable) col(name string) *mcol {
	for i := range t.cols {
		if strings.EqualFold(t.cols[i].name, name) {
			return &t.cols[i]
		}
	}
	return nil
}

// writable are the columns an INSERT names.
func (t *mtable) writable() []mcol {
	var out []mcol
	for _, c := range t.cols {
		if !c.gen {
			out = append(out, c)
		}
	}
	return out
}

// children are the tables that inherit from t or are its partitions.
func (m *meta) children(t *mtable) []*mtable {
	var out []*mtable
	for _, c := range m.tables {
		if strings.EqualFold(c.parent, t.name) {
			out = append(out, c)
		}
	}
	return out
}

// insertOrder lists the tables parents (referenced tables) first.
func (m *meta) insertOrder() []*mtable {
	var out []*mtable
	done := map[string]bool{}
	var visit func(t *mtable, depth int)
	visit = func(t *mtable, depth int) {
		if done[t.name] || depth > len(m.tables) {
			return
		}
		for _, fk := range t.fks {
			if r := m.table(fk.ref); r != nil && r != t {
				visit(r, depth+1)
			}
		}
		if !done[t.name] {
			done[t.name] = true
			out = append(out, t)
		}
	}
	for _, t := range m.tables {
		visit(t, 0)
	}
	return out
}

// sqliteCategory applies SQLite's affinity rules to a declared type.
func sqliteCategory(decl string) category {
	u := strings.ToUpper(decl)
	switch {
	case strings.Contains(u, "INT"):
		return catInt
	case strings.Contains(u, "CHAR"), strings.Contains(u, "CLOB"), strings.Contains(u, "TEXT"):
		return catText
	case u == "" || strings.Contains(u, "BLOB"):
		return catAny
	case strings.Contains(u, "REAL"), strings.Contains(u, "FLOA"), strings.Contains(u, "DOUB"):
		return catFloat8
	case strings.Contains(u, "BOOL"):
		return catBool
	}
	return catNumeric
}

// pgCategory maps a base type name (pg_type.typname) to a category.
func pgCategory(typname, typtype string) category {
	if typtype == "e" {
		return catEnum
	}
	switch typname {
	case "int4", "int8":
		return catInt
	case "int2":
		return catSmallint
	case "numeric":
		return catNumeric
	case "float4":
		return catReal
	case "float8":
		return catFloat8
	case "bpchar":
		return catBpchar
	case "bool":
		return catBool
	case "date":
		return catDate
	case "timestamp":
		return catTimestamp
	case "timestamptz":
		return catTstz
	case "interval":
		return catInterval
	case "json":
		return catJSON
	case "jsonb":
		return catJSONB
	}
	return catText
}
