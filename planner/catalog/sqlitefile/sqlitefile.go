// Package sqlitefile builds a catalog schema from a SQLite database file,
// as the Spider and BIRD benchmarks ship them (database/<db>/<db>.sqlite).
//
// It reads only the schema: sqlite_master and the table_xinfo,
// foreign_key_list and index_list pragmas, which SQLite answers from the
// DDL it stores, never from a table's rows. SQLite itself interprets its
// DDL (single-quoted table names, backticks, INTEGER PRIMARY KEY,
// AUTOINCREMENT, WITHOUT ROWID); a table's CREATE TABLE is re-parsed
// (catalog.ParseSQLiteTable) only for what the pragmas do not say:
// collations, CHECKs, generated columns' expressions, unique indexes on
// expressions. The driver is modernc.org/sqlite, pure Go, so `go run`
// works without cgo.
package sqlitefile

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Schema is a file's catalog with what was left out of it.
type Schema struct {
	*catalog.Schema
	// Dropped says which declared constraints were left out because they
	// cannot hold as written (a foreign key to a table or column that does
	// not exist, or to columns of another count). Leaving a constraint out
	// only weakens what the judge may assume, so it stays sound.
	Dropped []string
}

// Load reads the schema of the SQLite database at path, opened read-only
// and immutable so that nothing is written beside it (no journal, no WAL).
func Load(ctx context.Context, path string) (*Schema, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("sqlitefile: %w", err)
	}
	u := url.URL{Scheme: "file", Opaque: url.PathEscape(path), RawQuery: "mode=ro&immutable=1"}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, fmt.Errorf("sqlitefile: open %s: %w", path, err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqlitefile: open %s: %w", path, err)
	}
	defer conn.Close()
	s, err := load(ctx, conn)
	if err != nil {
		return nil, fmt.Errorf("sqlitefile: %s: %w", path, err)
	}
	return s, nil
}

type object struct{ kind, name, sql string }

// fkRow is one row of pragma_foreign_key_list: a column pair of foreign
// key id.
type fkRow struct {
	id, seq  int
	refTable string
	from     string
	to       sql.NullString
}

// pkCol is a primary key column: its position in the key and its ordinal
// in the table.
type pkCol struct{ pos, ord int }

// load reads the schema of the database open on conn: its tables and
// views, then the foreign keys among them.
func load(ctx context.Context, conn *sql.Conn) (*Schema, error) {
	objs, err := readObjects(ctx, conn)
	if err != nil {
		return nil, err
	}
	out := &Schema{}
	var tables []*catalog.Table
	byName := map[string]*catalog.Table{}
	fks := map[*catalog.Table][]fkRow{}
	for _, o := range objs {
		t, pk, gen, err := readColumns(ctx, conn, o.name)
		if err != nil {
			return nil, err
		}
		if o.kind == "view" {
			body, ok := viewBody(o.sql)
			if !ok {
				out.Dropped = append(out.Dropped, fmt.Sprintf("view %s: cannot find its query in %q", o.name, o.sql))
				continue
			}
			t.ViewSQL = body
			for _, c := range t.Columns {
				t.ViewColumns = append(t.ViewColumns, c.Name)
			}
			t.Columns = nil
		} else {
			if err := readTableFacts(ctx, conn, t, o.sql, pk, gen); err != nil {
				return nil, err
			}
			if fks[t], err = readForeignKeys(ctx, conn, o.name); err != nil {
				return nil, err
			}
		}
		key := strings.ToLower(t.Name)
		if _, dup := byName[key]; dup {
			return nil, fmt.Errorf("table %q declared twice (names match without regard to case)", t.Name)
		}
		byName[key] = t
		tables = append(tables, t)
	}
	for _, t := range tables {
		out.Dropped = attachForeignKeys(t, fks[t], byName, out.Dropped)
	}
	s, err := catalog.NewSchema(catalog.SQLite, tables)
	if err != nil {
		return nil, err
	}
	out.Schema = s
	return out, nil
}

// readObjects lists the database's tables and views (not SQLite's own)
// in creation order.
func readObjects(ctx context.Context, conn *sql.Conn) ([]object, error) {
	rows, err := conn.QueryContext(ctx, `SELECT type, name, COALESCE(sql, '') FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY rowid`)
	if err != nil {
		return nil, fmt.Errorf("read sqlite_master: %w", err)
	}
	var objs []object
	for rows.Next() {
		var o object
		if err := rows.Scan(&o.kind, &o.name, &o.sql); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read sqlite_master: %w", err)
		}
		objs = append(objs, o)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read sqlite_master: %w", err)
	}
	if len(objs) == 0 {
		return nil, errors.New("no tables (not a SQLite database, or an empty one)")
	}
	return objs, nil
}

// readColumns reads a table's or view's columns, the primary key columns
// of a table and the ordinals of its generated columns. It reads
// table_xinfo, not table_info: table_info leaves generated columns out,
// yet SELECT * returns them, so a schema without them would prove
// SELECT * equal to a list that misses them.
func readColumns(ctx context.Context, conn *sql.Conn, name string) (*catalog.Table, []pkCol, []int, error) {
	t := &catalog.Table{Name: name}
	var pk []pkCol
	var gen []int
	cols, err := conn.QueryContext(ctx, `SELECT cid, name, type, "notnull", pk, hidden FROM pragma_table_xinfo(?)`, name)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("table_xinfo(%s): %w", name, err)
	}
	for cols.Next() {
		var cid, notNull, pkPos, hidden int
		var cname, typ string
		if err := cols.Scan(&cid, &cname, &typ, &notNull, &pkPos, &hidden); err != nil {
			cols.Close()
			return nil, nil, nil, fmt.Errorf("table_xinfo(%s): %w", name, err)
		}
		// hidden: 0 an ordinary column, 2 a virtual and 3 a stored
		// generated column (both in SELECT *), 1 a virtual table's
		// hidden column (not in SELECT *).
		if hidden == 1 {
			continue
		}
		ord := len(t.Columns)
		t.Columns = append(t.Columns, catalog.Column{Name: cname, TypeSQL: typ, Type: catalog.SQLiteTypeFromName(typ), NotNull: notNull != 0, Ordinal: ord})
		if pkPos > 0 {
			pk = append(pk, pkCol{pkPos, ord})
		}
		if hidden == 2 || hidden == 3 {
			gen = append(gen, ord)
		}
	}
	cols.Close()
	if err := cols.Err(); err != nil {
		return nil, nil, nil, fmt.Errorf("table_xinfo(%s): %w", name, err)
	}
	return t, pk, gen, nil
}

// readTableFacts reads what a table's columns alone do not say: unique
// constraints, facts of its DDL and indexes, STRICT and WITHOUT ROWID,
// its primary key pk and the expressions of its generated columns gen.
func readTableFacts(ctx context.Context, conn *sql.Conn, t *catalog.Table, ddl string, pk []pkCol, gen []int) error {
	// The key's order is the declaration's (pk gives the position),
	// which is how LoadDDL keeps it.
	sort.Slice(pk, func(i, j int) bool { return pk[i].pos < pk[j].pos })
	var pkOrds []int
	for _, p := range pk {
		pkOrds = append(pkOrds, p.ord)
	}
	if err := readUnique(ctx, conn, t); err != nil {
		return err
	}
	ixs, err := indexSQL(ctx, conn, t.Name)
	if err != nil {
		return err
	}
	readDDLFacts(t, ddl, ixs, gen)
	// STRICT and WITHOUT ROWID decide which columns hold only
	// integers (catalog.Table.IntegerOnly).
	if err := conn.QueryRowContext(ctx, `SELECT strict, wr FROM pragma_table_list(?) WHERE schema = 'main'`, t.Name).Scan(&t.Strict, &t.WithoutRowID); err != nil {
		return fmt.Errorf("table_list(%s): %w", t.Name, err)
	}
	// INTEGER PRIMARY KEY DESC is no rowid alias: SQLite gives it an
	// index of its own (origin 'pk'), which an alias never has.
	if !t.WithoutRowID && len(pkOrds) == 1 && strings.EqualFold(strings.TrimSpace(t.Columns[pkOrds[0]].TypeSQL), "integer") {
		var n int
		if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM pragma_index_list(?) WHERE origin = 'pk'`, t.Name).Scan(&n); err != nil {
			return fmt.Errorf("index_list(%s): %w", t.Name, err)
		}
		t.IntegerKeyDesc = n > 0
	}
	// table_info's notnull is the declaration: whether a key
	// column may hold NULL is SQLite's rule (rowid alias,
	// WITHOUT ROWID), which SetSQLitePrimaryKey applies.
	if len(pkOrds) > 0 {
		catalog.SetSQLitePrimaryKey(t, pkOrds)
	}
	return nil
}

// readForeignKeys reads a table's foreign key column pairs, by key.
func readForeignKeys(ctx context.Context, conn *sql.Conn, table string) ([]fkRow, error) {
	fr, err := conn.QueryContext(ctx, `SELECT id, seq, "table", "from", "to" FROM pragma_foreign_key_list(?) ORDER BY id, seq`, table)
	if err != nil {
		return nil, fmt.Errorf("foreign_key_list(%s): %w", table, err)
	}
	var out []fkRow
	for fr.Next() {
		var r fkRow
		if err := fr.Scan(&r.id, &r.seq, &r.refTable, &r.from, &r.to); err != nil {
			fr.Close()
			return nil, fmt.Errorf("foreign_key_list(%s): %w", table, err)
		}
		out = append(out, r)
	}
	fr.Close()
	if err := fr.Err(); err != nil {
		return nil, fmt.Errorf("foreign_key_list(%s): %w", table, err)
	}
	return out, nil
}

// attachForeignKeys adds to t the foreign keys of its rows (grouped by
// key id) that hold, once every table is known, and appends why the
// others were dropped to dropped.
func attachForeignKeys(t *catalog.Table, rows []fkRow, byName map[string]*catalog.Table, dropped []string) []string {
	for i := 0; i < len(rows); {
		j := i
		for j < len(rows) && rows[j].id == rows[i].id {
			j++
		}
		fk, why := resolveFK(t, rows[i].refTable, byName, func(yield func(from string, to sql.NullString)) {
			for _, r := range rows[i:j] {
				yield(r.from, r.to)
			}
		})
		if why != "" {
			dropped = append(dropped, fmt.Sprintf("foreign key of %s to %s: %s", t.Name, rows[i].refTable, why))
		} else {
			t.ForeignKeys = append(t.ForeignKeys, fk)
		}
		i = j
	}
	return dropped
}

// resolveFK turns one foreign key's (from, to) column pairs into ordinals;
// a missing "to" means the referenced table's primary key, as in SQLite.
// It returns why the key cannot hold instead when it cannot.
func resolveFK(t *catalog.Table, refName string, byName map[string]*catalog.Table, cols func(func(string, sql.NullString))) (catalog.ForeignKey, string) {
	ref := byName[strings.ToLower(refName)]
	if ref == nil || ref.IsView() {
		return catalog.ForeignKey{}, "no such table"
	}
	fk := catalog.ForeignKey{RefTable: ref.Name}
	why := ""
	implicit := false
	cols(func(from string, to sql.NullString) {
		o := ordinal(t, from)
		if o < 0 {
			why = fmt.Sprintf("no column %s.%s", t.Name, from)
			return
		}
		fk.Columns = append(fk.Columns, o)
		if !to.Valid || to.String == "" {
			implicit = true
			return
		}
		r := ordinal(ref, to.String)
		if r < 0 {
			why = fmt.Sprintf("no column %s.%s", ref.Name, to.String)
			return
		}
		fk.RefColumns = append(fk.RefColumns, r)
	})
	if why != "" {
		return fk, why
	}
	if implicit {
		if len(ref.PrimaryKey) == 0 {
			return fk, "the referenced table has no primary key"
		}
		fk.RefColumns = append([]int(nil), ref.PrimaryKey...)
	}
	if len(fk.RefColumns) != len(fk.Columns) {
		return fk, fmt.Sprintf("%d columns reference %d", len(fk.Columns), len(fk.RefColumns))
	}
	return fk, ""
}

func ordinal(t *catalog.Table, name string) int {
	for i, c := range t.Columns {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

// readUnique adds the table's UNIQUE constraints and unique indexes; the
// primary key's own index (origin "pk") is already the primary key, and
// partial indexes hold only for some rows.
func readUnique(ctx context.Context, conn *sql.Conn, t *catalog.Table) error {
	rows, err := conn.QueryContext(ctx, `SELECT name, "unique", origin, partial FROM pragma_index_list(?)`, t.Name)
	if err != nil {
		return fmt.Errorf("index_list(%s): %w", t.Name, err)
	}
	var names []string
	for rows.Next() {
		var name, origin string
		var unique, partial int
		if err := rows.Scan(&name, &unique, &origin, &partial); err != nil {
			rows.Close()
			return fmt.Errorf("index_list(%s): %w", t.Name, err)
		}
		if unique != 0 && origin != "pk" && partial == 0 {
			names = append(names, name)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("index_list(%s): %w", t.Name, err)
	}
	sort.Strings(names)
	for _, name := range names {
		ir, err := conn.QueryContext(ctx, `SELECT seqno, COALESCE(name, '') FROM pragma_index_info(?) ORDER BY seqno`, name)
		if err != nil {
			return fmt.Errorf("index_info(%s): %w", name, err)
		}
		var ords []int
		expr := false
		for ir.Next() {
			var seq int
			var col string
			if err := ir.Scan(&seq, &col); err != nil {
				ir.Close()
				return fmt.Errorf("index_info(%s): %w", name, err)
			}
			o := ordinal(t, col)
			if o < 0 {
				expr = true // an index on an expression is no column key
			}
			ords = append(ords, o)
		}
		ir.Close()
		if err := ir.Err(); err != nil {
			return fmt.Errorf("index_info(%s): %w", name, err)
		}
		if !expr && len(ords) > 0 {
			t.Unique = append(t.Unique, ords)
		}
	}
	return nil
}

// viewBody returns the query of a CREATE VIEW statement: the text after
// the first AS that follows the view's name (and its column list).
func viewBody(ddl string) (string, bool) {
	depth := 0
	var quote byte
	for i := 0; i < len(ddl); i++ {
		c := ddl[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`' || c == '[':
			quote = c
			if c == '[' {
				quote = ']'
			}
		case c == '(':
			depth++
		case c == ')':
			depth--
		case depth == 0 && (c == 'a' || c == 'A') && i+2 < len(ddl) && (ddl[i+1] == 's' || ddl[i+1] == 'S') &&
			i > 0 && isSpace(ddl[i-1]) && (isSpace(ddl[i+2]) || ddl[i+2] == '('):
			body := strings.TrimSpace(ddl[i+2:])
			return strings.TrimSuffix(body, ";"), body != ""
		}
	}
	return "", false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// readDDLFacts adds what the pragmas do not say and the table's DDL does:
// each column's collation (NOCASE and RTRIM make = something other than
// identity), the CHECK constraints and the expressions of the generated
// columns (ordinals gen). DDL the loader cannot read that declares any of
// them leaves the table unmodelled, so no verdict over it is proved or
// refuted: a generated column read as an ordinary one would let the
// refuter give it values SQLite never computes.
func readDDLFacts(t *catalog.Table, ddl string, indexes []string, gen []int) {
	pt, err := catalog.ParseSQLiteTable(ddl, indexes...)
	if err != nil {
		// Without the indexes, at least the table's own facts.
		pt, err = catalog.ParseSQLiteTable(ddl)
		if err == nil && len(indexes) > 0 {
			t.Unmodelled = append(t.Unmodelled, "a unique index on an expression or with WHERE the loader cannot read")
		}
	}
	if err != nil {
		low := strings.ToLower(ddl)
		if strings.Contains(low, "collate") || strings.Contains(low, "check") {
			t.Unmodelled = append(t.Unmodelled, "its DDL declares a COLLATE or CHECK the loader cannot read: "+err.Error())
		}
		if len(indexes) > 0 {
			t.Unmodelled = append(t.Unmodelled, "a unique index on an expression or with WHERE the loader cannot read")
		}
		if len(gen) > 0 {
			t.Unmodelled = append(t.Unmodelled, "generated columns whose expressions the loader cannot read: "+err.Error())
		}
		return
	}
	t.UniqueIndexes = pt.UniqueIndexes
	for i := range t.Columns {
		if o := ordinal(pt, t.Columns[i].Name); o >= 0 {
			t.Columns[i].Collation = pt.Columns[o].Collation
			t.Columns[i].Nondeterministic = pt.Columns[o].Nondeterministic
		}
	}
	t.Checks = pt.Checks
	t.Unmodelled = append(t.Unmodelled, pt.Unmodelled...)
	for _, g := range gen {
		c := &t.Columns[g]
		if o := ordinal(pt, c.Name); o >= 0 && pt.Columns[o].Generated != "" {
			c.Generated = pt.Columns[o].Generated
		} else {
			t.Unmodelled = append(t.Unmodelled, "generated column "+c.Name+" whose expression the loader cannot read")
		}
	}
}

// indexSQL returns the DDL of the table's unique indexes that are not
// plain keys (on an expression, or partial): the pragmas say they exist
// but not what they hold.
func indexSQL(ctx context.Context, conn *sql.Conn, table string) ([]string, error) {
	rows, err := conn.QueryContext(ctx, `SELECT m.sql FROM pragma_index_list(?) l JOIN sqlite_master m ON m.type = 'index' AND m.name = l.name
WHERE l."unique" AND m.sql IS NOT NULL
  AND (l.partial OR EXISTS (SELECT 1 FROM pragma_index_info(l.name) i WHERE i.cid < 0))
ORDER BY l.name`, table)
	if err != nil {
		return nil, fmt.Errorf("index_list(%s): %w", table, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("index_list(%s): %w", table, err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
