package pgcatalog

import (
	"strconv"
	"strings"

	"github.com/pgequiv/pgequiv/internal/pgtypes"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// Fixed OIDs, as PostgreSQL assigns them at initdb.
const (
	nsPgCatalog  = 11
	nsPublic     = 2200
	nsInfoSchema = 13000 // initdb assigns it; 13000 is in the range it uses
	roleBoot     = 10    // the bootstrap superuser: here, the connected user
	amHeap       = 2
	amBtree      = 403
	collDefault  = 100
	collC        = 950
	firstUserOID = 16384 // FirstNormalObjectId: user objects start here
	encodingUTF8 = 6
	pgDatabaseID = 16384
)

// relation is a user table, view or index as the catalog numbers it.
type relation struct {
	oid, rowType uint32
	table        *catalog.Table
	// index: the key or unique index this relation is, or nil.
	index *index
}

// index is a primary key, UNIQUE constraint or unique index.
type index struct {
	oid, conOID uint32 // conOID 0: a unique index without a constraint
	name        string
	table       *relation
	cols        []int // ordinals; -1 for an expression
	exprs       []string
	primary     bool
	where       string
}

// constraint is a row of pg_constraint.
type constraint struct {
	oid     uint32
	name    string
	kind    byte // p u f c
	table   *relation
	cols    []int
	ref     *relation // foreign keys
	refCols []int
	check   string
	index   *index
}

// Data is the content of the system tables for one schema, connected
// user and database, plus the lookups its functions need.
type Data struct {
	schema      *catalog.Schema
	user, dbase string
	rels        []*relation
	relByOID    map[uint32]*relation
	relByName   map[string]*relation
	cons        []*constraint
	conByOID    map[uint32]*constraint
	idxByOID    map[uint32]*index
	db          exec.Database
	// seriesMax is the last row of pgequiv_series (srf.go): more than
	// any array of this catalog holds.
	seriesMax int
}

// newData numbers the schema's objects from FirstNormalObjectId in
// declaration order (tables, then each table's row type, keys and
// constraints), as a fresh database would.
func newData(s *catalog.Schema, user, dbase string) *Data {
	d := &Data{schema: s, user: user, dbase: dbase, relByOID: map[uint32]*relation{}, relByName: map[string]*relation{},
		conByOID: map[uint32]*constraint{}, idxByOID: map[uint32]*index{}}
	next := uint32(firstUserOID) + 1 // pgDatabaseID is the first
	alloc := func() uint32 { next++; return next - 1 }
	for _, t := range s.Tables {
		r := &relation{oid: alloc(), rowType: alloc(), table: t}
		d.rels = append(d.rels, r)
		d.relByOID[r.oid], d.relByName[t.Name] = r, r
	}
	base := append([]*relation(nil), d.rels...)
	for _, r := range base {
		t := r.table
		addIndex := func(ix *index, kind byte) {
			ix.oid, ix.table = alloc(), r
			ir := &relation{oid: ix.oid, table: r.table, index: ix}
			d.rels = append(d.rels, ir)
			d.relByOID[ir.oid] = ir
			d.idxByOID[ix.oid] = ix
			if kind != 0 {
				c := &constraint{oid: alloc(), name: ix.name, kind: kind, table: r, cols: ix.cols, index: ix}
				ix.conOID = c.oid
				d.addConstraint(c)
			}
		}
		if t.IsView() {
			continue
		}
		if len(t.PrimaryKey) > 0 {
			addIndex(&index{name: t.Name + "_pkey", cols: t.PrimaryKey, primary: true}, 'p')
		}
		for _, u := range t.Unique {
			addIndex(&index{name: t.Name + "_" + colNames(t, u, "_") + "_key", cols: u}, 'u')
		}
		for _, ui := range t.UniqueIndexes {
			addIndex(&index{name: ui.Name, cols: ui.Columns, exprs: ui.Exprs, where: ui.Where}, 0)
		}
		for _, fk := range t.ForeignKeys {
			c := &constraint{oid: alloc(), name: t.Name + "_" + colNames(t, fk.Columns, "_") + "_fkey", kind: 'f', table: r,
				cols: fk.Columns, ref: d.relByName[fk.RefTable], refCols: fk.RefColumns}
			d.addConstraint(c)
		}
		for _, ck := range t.Checks {
			name := ck.Name
			if name == "" {
				name = t.Name + "_check"
			}
			d.addConstraint(&constraint{oid: alloc(), name: name, kind: 'c', table: r, check: ck.Expr})
		}
	}
	d.seriesMax = 64
	for _, t := range s.Tables {
		d.seriesMax = max(d.seriesMax, len(t.Columns)+1)
	}
	d.db = d.tables()
	return d
}

func (d *Data) addConstraint(c *constraint) {
	d.cons = append(d.cons, c)
	d.conByOID[c.oid] = c
}

// colNames joins the names of t's columns ords.
func colNames(t *catalog.Table, ords []int, sep string) string {
	var names []string
	for _, o := range ords {
		if o >= 0 && o < len(t.Columns) {
			names = append(names, t.Columns[o].Name)
		}
	}
	return strings.Join(names, sep)
}

// Value helpers.
func o(n uint32) exec.Value { return exec.Int(int64(n)) }
func i(n int) exec.Value    { return exec.Int(int64(n)) }
func s(v string) exec.Value { return exec.Text(v) }
func bl(v bool) exec.Value  { return exec.Bool(v) }
func ch(v byte) exec.Value  { return exec.Text(string(v)) }
func sOrNull(v string) exec.Value {
	if v == "" {
		return exec.Null
	}
	return exec.Text(v)
}

var null = exec.Null

// tables fills every system table.
func (d *Data) tables() exec.Database {
	db := exec.Database{}
	db["pg_namespace"] = [][]exec.Value{
		{o(nsPgCatalog), s("pg_catalog"), o(roleBoot), null},
		{o(nsPublic), s("public"), o(roleBoot), null},
		{o(nsInfoSchema), s("information_schema"), o(roleBoot), null},
	}
	db["pg_database"] = [][]exec.Value{{o(pgDatabaseID), s(d.dbase), o(roleBoot), i(encodingUTF8), ch('c'), bl(false), bl(true),
		i(-1), o(0), o(1), o(1663), s("C"), s("C"), null, null, null}}
	db["pg_roles"] = [][]exec.Value{{s(d.user), bl(true), bl(true), bl(true), bl(true), bl(true), bl(true), i(-1), s("********"),
		null, bl(true), null, o(roleBoot)}}
	db["pg_user"] = [][]exec.Value{{s(d.user), o(roleBoot), bl(true), bl(true), bl(true), bl(true), s("********"), null, null}}
	db["pg_am"] = [][]exec.Value{{o(amHeap), s("heap"), o(3), ch('t')}, {o(amBtree), s("btree"), o(330), ch('i')}}
	db["pg_tablespace"] = [][]exec.Value{{o(1663), s("pg_default"), o(roleBoot), null, null}, {o(1664), s("pg_global"), o(roleBoot), null, null}}
	db["pg_collation"] = [][]exec.Value{
		{o(collDefault), s("default"), o(nsPgCatalog), o(roleBoot), ch('d'), bl(true), i(-1), null, null, null, null},
		{o(collC), s("C"), o(nsPgCatalog), o(roleBoot), ch('c'), bl(true), i(-1), s("C"), s("C"), null, null},
		{o(951), s("POSIX"), o(nsPgCatalog), o(roleBoot), ch('c'), bl(true), i(-1), s("POSIX"), s("POSIX"), null, null},
	}
	db["pg_extension"] = [][]exec.Value{{o(13500), s("plpgsql"), o(roleBoot), o(nsPgCatalog), bl(false), s("1.0"), null, null}}
	db["schemata"] = [][]exec.Value{
		{s(d.dbase), s("information_schema"), s(d.user), null, null, null, null},
		{s(d.dbase), s("pg_catalog"), s(d.user), null, null, null, null},
		{s(d.dbase), s("public"), s(d.user), null, null, null, null},
	}
	for _, t := range builtinTypes {
		db["pg_type"] = append(db["pg_type"], typeRow(t.oid, t.name, nsPgCatalog, t.len, 'b', t.category, 0, t.array, collationOf(t.oid)))
	}
	for _, r := range d.rels {
		d.relationRows(db, r)
	}
	for _, c := range d.cons {
		db["pg_constraint"] = append(db["pg_constraint"], d.constraintRow(c))
		d.infoConstraintRows(db, c)
	}
	db["pg_settings"] = settingsRows()
	db["pg_stat_user_tables"] = d.statRows()
	for n := 1; n <= d.seriesMax; n++ {
		db[seriesTable] = append(db[seriesTable], []exec.Value{i(n)})
	}
	for _, name := range []string{"pg_policy", "pg_statistic_ext", "pg_publication", "pg_publication_namespace",
		"pg_publication_rel", "pg_trigger", "pg_depend", "pg_proc", "pg_description", "pg_attrdef", "pg_sequence", "pg_enum", "pg_inherits",
		"pg_settings", "pg_index", "pg_class", "pg_attribute", "pg_constraint", "tables", "columns", "table_constraints",
		"key_column_usage"} {
		if db[name] == nil {
			db[name] = [][]exec.Value{}
		}
	}
	return db
}

// storageOf is a type's typstorage: plain for fixed-length types, main
// for numeric, extended for the other variable-length ones.
func storageOf(oid uint32) byte {
	switch {
	case oid == pgtypes.Numeric:
		return 'm'
	case typeByOID[oid] != nil && typeByOID[oid].len < 0:
		return 'x'
	}
	return 'p'
}

// collationOf is a type's typcollation: the default for collatable types.
func collationOf(oid uint32) uint32 {
	switch oid {
	case pgtypes.Name:
		return collC
	case pgtypes.Text, 1042, 1043:
		return collDefault
	}
	return 0
}

func typeRow(oid uint32, name string, ns uint32, length int, typtype byte, category string, relid, array, coll uint32) []exec.Value {
	align, storage := byte('i'), storageOf(oid)
	if length < 0 && storage == 'p' {
		storage = 'x'
	}
	return []exec.Value{o(oid), s(name), o(ns), o(roleBoot), i(length), bl(length > 0 && length <= 8), ch(typtype),
		s(category), bl(false), bl(true), ch(','), o(relid), o(0), o(0), o(array), o(0), o(0), o(0), o(0), o(0), o(0), o(0),
		ch(align), ch(storage), bl(false), o(0), i(-1), i(0), o(coll), null, null, null}
}

// relationRows adds a user relation's pg_class, pg_type, pg_attribute,
// pg_index, pg_attrdef and information_schema rows.
func (d *Data) relationRows(db exec.Database, r *relation) {
	t := r.table
	kind, am := byte('r'), uint32(amHeap)
	switch {
	case r.index != nil:
		kind, am = 'i', amBtree
	case t.IsView():
		kind, am = 'v', 0
	case t.Partitioned:
		kind, am = 'p', 0
	}
	name, natts := t.Name, len(t.Columns)
	if r.index != nil {
		name, natts = r.index.name, len(r.index.cols)
	}
	hasIndex := r.index == nil && !t.IsView() && (len(t.PrimaryKey) > 0 || len(t.Unique) > 0 || len(t.UniqueIndexes) > 0)
	checks := 0
	if r.index == nil {
		checks = len(t.Checks)
	}
	db["pg_class"] = append(db["pg_class"], []exec.Value{o(r.oid), s(name), o(nsPublic), o(r.rowType), o(0), o(roleBoot), o(am),
		o(r.oid), o(0), i(0), exec.Float4(-1), i(0), o(0), bl(hasIndex), bl(false), ch('p'), ch(kind), i(natts), i(checks),
		bl(t.IsView()), bl(r.index == nil && d.hasFKTriggers(t)), bl(false), bl(false), bl(false), bl(true), ch('d'), bl(t.PartitionBound != ""), o(0), o(0),
		o(0), null, null, sOrNull(t.PartitionBound)})
	if r.index != nil {
		d.indexRows(db, r)
		return
	}
	db["pg_type"] = append(db["pg_type"], typeRow(r.rowType, t.Name, nsPublic, -1, 'c', "C", r.oid, 0, 0))
	tableType := "BASE TABLE"
	if t.IsView() {
		tableType = "VIEW"
	}
	db["tables"] = append(db["tables"], []exec.Value{s(d.dbase), s("public"), s(t.Name), s(tableType), null, null, null, null,
		null, s(yesNo(!t.IsView())), s("NO"), null})
	for _, c := range t.Columns {
		typ, mod := declaredType(c.TypeSQL)
		pt := typeByOID[typ]
		storage := storageOf(typ)
		gen := byte(0)
		if c.Generated != "" {
			gen = 's'
			db["pg_attrdef"] = append(db["pg_attrdef"], []exec.Value{o(r.oid*1000 + uint32(c.Ordinal)), o(r.oid), i(c.Ordinal + 1), s(c.Generated)})
		}
		genText := ""
		if gen != 0 {
			genText = string(gen)
		}
		db["pg_attribute"] = append(db["pg_attribute"], []exec.Value{o(r.oid), s(c.Name), o(typ), i(-1), i(pt.len), i(c.Ordinal + 1),
			i(0), i(-1), i(int(mod)), bl(pt.len > 0 && pt.len <= 8), ch('i'), ch(storage), s(""), bl(c.NotNull), bl(gen != 0),
			bl(false), s(""), s(genText), bl(false), bl(true), i(0), o(collationOf(typ)), null, null, null, null})
		db["columns"] = append(db["columns"], d.infoColumnRow(t, c, typ, mod))
	}
}

// hasFKTriggers is relhastriggers: PostgreSQL implements foreign keys
// with (internal) triggers on both the referencing and the referenced
// table, and psql lists a table's foreign keys only when it is set.
func (d *Data) hasFKTriggers(t *catalog.Table) bool {
	if len(t.ForeignKeys) > 0 {
		return true
	}
	for _, u := range d.schema.Tables {
		for _, fk := range u.ForeignKeys {
			if fk.RefTable == t.Name {
				return true
			}
		}
	}
	return false
}

func yesNo(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}

// indexRows adds an index's pg_index row and its columns' pg_attribute
// rows.
func (d *Data) indexRows(db exec.Database, r *relation) {
	ix := r.index
	// indoption is 0 per key column (ASC, NULLS LAST): the loaded keys
	// carry no ordering, and a key constraint's index has none.
	keys := make([]string, len(ix.cols))
	for k, c := range ix.cols {
		keys[k] = strconv.Itoa(c + 1) // an expression is 0
		if c >= 0 && c < len(r.table.Columns) {
			col := r.table.Columns[c]
			typ, mod := declaredType(col.TypeSQL)
			db["pg_attribute"] = append(db["pg_attribute"], []exec.Value{o(r.oid), s(col.Name), o(typ), i(-1), i(typeByOID[typ].len),
				i(k + 1), i(0), i(-1), i(int(mod)), bl(false), ch('i'), ch('p'), s(""), bl(false), bl(false), bl(false), s(""),
				s(""), bl(false), bl(true), i(0), o(collationOf(typ)), null, null, null, null})
		}
	}
	db["pg_index"] = append(db["pg_index"], []exec.Value{o(ix.oid), o(ix.table.oid), i(len(ix.cols)), i(len(ix.cols)), bl(true),
		bl(false), bl(ix.primary), bl(false), bl(true), bl(false), bl(true), bl(false), bl(true), bl(true), bl(false),
		s(strings.Join(keys, " ")), s(""), s(""), s(strings.TrimSpace(strings.Repeat("0 ", len(keys)))), null, sOrNull(ix.where)})
}

// pgArray is the text form of an int2[] of ordinals (from 0) as attnums.
func pgArray(ords []int) string {
	parts := make([]string, len(ords))
	for k, c := range ords {
		parts[k] = strconv.Itoa(c + 1)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func (d *Data) constraintRow(c *constraint) []exec.Value {
	var indid, frel uint32
	if c.index != nil {
		indid = c.index.oid
	}
	confkey, upd, del, match := null, ch(' '), ch(' '), ch(' ')
	if c.kind == 'f' {
		if c.ref != nil {
			frel = c.ref.oid
			// PostgreSQL records the referenced key's index.
			for _, ix := range d.idxByOID {
				if ix.table == c.ref && sameInts(ix.cols, c.refCols) && ix.conOID != 0 {
					indid = ix.oid
				}
			}
		}
		confkey, upd, del, match = s(pgArray(c.refCols)), ch('a'), ch('a'), ch('s')
	}
	conkey := null
	if len(c.cols) > 0 {
		conkey = s(pgArray(c.cols))
	}
	return []exec.Value{o(c.oid), s(c.name), o(nsPublic), ch(c.kind), bl(false), bl(false), bl(true), o(c.table.oid), o(0), o(indid),
		o(0), o(frel), upd, del, match, bl(true), i(0), bl(false), conkey, confkey, null, null, null, null, null, sOrNull(c.check)}
}

func sameInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}
