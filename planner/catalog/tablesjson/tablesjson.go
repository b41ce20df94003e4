// Package tablesjson builds catalog schemas from a Spider/BIRD tables.json:
// one entry per database with its tables, columns, coarse column types,
// primary keys and foreign keys, all by index.
//
// tables.json is a lossy description. Spider lists the columns of a
// composite primary key as separate integers (BIRD as a nested list);
// both are read as one composite key per table, the only reading that
// claims no more than the database declares. Its types are coarse
// ("number", "text", "time", "boolean", "others") and it has no NOT NULL
// or UNIQUE. A SQLite file's own DDL (package sqlitefile) says more and
// is preferred where both exist.
package tablesjson

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// entry is one database of tables.json; only the fields read here.
type entry struct {
	DBID        string            `json:"db_id"`
	Tables      []string          `json:"table_names_original"`
	Columns     [][2]any          `json:"column_names_original"`
	Types       []string          `json:"column_types"`
	PrimaryKeys []json.RawMessage `json:"primary_keys"`
	ForeignKeys [][2]int          `json:"foreign_keys"`
}

// File is a parsed tables.json.
type File struct {
	Path    string
	entries map[string]entry
	order   []string
}

// Read parses the tables.json at path.
func Read(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tablesjson: %w", err)
	}
	var es []entry
	if err := json.Unmarshal(data, &es); err != nil {
		return nil, fmt.Errorf("tablesjson: %s: want a JSON list of databases: %w", path, err)
	}
	f := &File{Path: path, entries: map[string]entry{}}
	for i, e := range es {
		if e.DBID == "" {
			return nil, fmt.Errorf("tablesjson: %s: database %d has no db_id", path, i+1)
		}
		if _, dup := f.entries[e.DBID]; dup {
			return nil, fmt.Errorf("tablesjson: %s: db_id %q listed twice", path, e.DBID)
		}
		f.entries[e.DBID] = e
		f.order = append(f.order, e.DBID)
	}
	return f, nil
}

// DBs lists the db_ids in file order.
func (f *File) DBs() []string { return append([]string(nil), f.order...) }

// Has reports whether the file describes db.
func (f *File) Has(db string) bool { _, ok := f.entries[db]; return ok }

// Schema builds db's schema under dialect d (Spider's queries are SQLite).
func (f *File) Schema(db string, d catalog.Dialect) (*catalog.Schema, error) {
	e, ok := f.entries[db]
	if !ok {
		return nil, fmt.Errorf("tablesjson: %s has no database %q", f.Path, db)
	}
	s, err := e.schema(d)
	if err != nil {
		return nil, fmt.Errorf("tablesjson: %s: database %q: %w", f.Path, db, err)
	}
	return s, nil
}

// typeNames maps tables.json's coarse types to SQL type names.
var typeNames = map[string]string{"number": "numeric", "text": "text", "time": "timestamp", "boolean": "boolean"}

// place is a column's table and ordinal within it.
type place struct{ table, ord int }

// link is one foreign-key column pair.
type link struct{ from, to place }

func (e entry) schema(d catalog.Dialect) (*catalog.Schema, error) {
	tables := make([]*catalog.Table, len(e.Tables))
	for i, n := range e.Tables {
		tables[i] = &catalog.Table{Name: n}
	}
	// Column 0 is Spider's "*" with table -1; it has no place.
	places := make([]place, len(e.Columns))
	for i, c := range e.Columns {
		ti, ok := c[0].(float64)
		name, ok2 := c[1].(string)
		if !ok || !ok2 || ti != float64(int(ti)) {
			return nil, fmt.Errorf("column %d: want [table index, name]", i)
		}
		if int(ti) < 0 {
			places[i] = place{-1, -1}
			continue
		}
		if int(ti) >= len(tables) {
			return nil, fmt.Errorf("column %d (%s): table index %d out of range", i, name, int(ti))
		}
		t := tables[int(ti)]
		typ := ""
		if i < len(e.Types) {
			typ = typeNames[e.Types[i]]
		}
		places[i] = place{int(ti), len(t.Columns)}
		t.Columns = append(t.Columns, catalog.Column{Name: name, TypeSQL: typ, Type: catalog.TypeFromName(typ), Ordinal: len(t.Columns)})
	}
	col := func(i int) (place, error) {
		if i < 0 || i >= len(places) || places[i].table < 0 {
			return place{}, fmt.Errorf("column index %d names no table's column", i)
		}
		return places[i], nil
	}
	// Primary keys: an integer is one column, a list one composite key;
	// integers of the same table form one key together.
	keys := map[int][]int{}
	for _, raw := range e.PrimaryKeys {
		var one int
		var many []int
		if err := json.Unmarshal(raw, &one); err == nil {
			many = []int{one}
		} else if err := json.Unmarshal(raw, &many); err != nil {
			return nil, fmt.Errorf("primary key %s: want a column index or a list of them", raw)
		}
		for _, c := range many {
			p, err := col(c)
			if err != nil {
				return nil, fmt.Errorf("primary key: %w", err)
			}
			keys[p.table] = append(keys[p.table], p.ord)
		}
	}
	for ti, ords := range keys {
		sort.Ints(ords)
		// The databases are SQLite: a rowid table's key may hold NULL
		// unless it is the INTEGER rowid alias, which tables.json cannot
		// tell (it says "number"), so the key is kept as SQLite allows.
		catalog.SetSQLitePrimaryKey(tables[ti], ords)
	}
	// Foreign keys come as column pairs. Pairs from one table to another
	// that together reference the parent's whole composite key are one
	// composite key; any other pair is a key of its own.
	groups := map[[2]int][]link{}
	var order [][2]int
	for _, fk := range e.ForeignKeys {
		from, err := col(fk[0])
		if err != nil {
			return nil, fmt.Errorf("foreign key %v: %w", fk, err)
		}
		to, err := col(fk[1])
		if err != nil {
			return nil, fmt.Errorf("foreign key %v: %w", fk, err)
		}
		k := [2]int{from.table, to.table}
		if _, seen := groups[k]; !seen {
			order = append(order, k)
		}
		groups[k] = append(groups[k], link{from, to})
	}
	for _, k := range order {
		links := groups[k]
		child, parent := tables[k[0]], tables[k[1]]
		if composite(links, parent) {
			fk := catalog.ForeignKey{RefTable: parent.Name}
			for _, l := range links {
				fk.Columns = append(fk.Columns, l.from.ord)
				fk.RefColumns = append(fk.RefColumns, l.to.ord)
			}
			child.ForeignKeys = append(child.ForeignKeys, fk)
			continue
		}
		for _, l := range links {
			child.ForeignKeys = append(child.ForeignKeys, catalog.ForeignKey{Columns: []int{l.from.ord}, RefTable: parent.Name, RefColumns: []int{l.to.ord}})
		}
	}
	return catalog.NewSchema(d, tables)
}

// composite reports whether links reference exactly the parent's
// primary key of several columns, each column once.
func composite(links []link, parent *catalog.Table) bool {
	if len(parent.PrimaryKey) < 2 || len(links) != len(parent.PrimaryKey) {
		return false
	}
	seen := map[int]bool{}
	for _, l := range links {
		seen[l.to.ord] = true
	}
	for _, o := range parent.PrimaryKey {
		if !seen[o] {
			return false
		}
	}
	return len(seen) == len(links)
}
