package catalog

import (
	"fmt"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
)

// The loader keeps each table's constraints by column name, with their
// names, until the whole DDL is read: ALTER TABLE may add or drop them
// later (pg_dump adds every key that way), and domains, enums and
// collations may be declared or altered after the tables that use them.
// finish turns the state into Tables.

type keyDef struct {
	name       string
	cols       []string
	primary    bool
	deferrable bool
	index      bool // from CREATE UNIQUE INDEX, not a constraint
}

type fkDef struct {
	name       string
	cols       []string
	ref        string
	refCols    []string
	deferrable bool
	loc        int32
}

type checkDef struct {
	name      string
	expr      *pg.Node
	notValid  bool // NOT VALID: rows from before it may violate it
	noInherit bool
}

type uidxDef struct {
	name  string
	elems []*pg.Node // IndexElem
	where *pg.Node
}

// colType is what a column was declared with, resolved against the
// DDL's domains and enums once all of it is read.
type colType struct {
	name      string // the type's unqualified name as written ("int4", "mood")
	qualified string // with its schema when one was written
	mods      string
	array     bool
	collation string
	line      int // where the column was declared
}

type tableState struct {
	t          *Table
	types      []colType
	keys       []keyDef
	fks        []fkDef
	checks     []checkDef
	uidx       []uidxDef
	unmodelled []string
	partKeys   []*pg.Node // PARTITION BY elements (PartitionElem)
	partStrat  pg.PartitionStrategy
	bound      *pg.PartitionBoundSpec
}

type ddlBuilder struct {
	d       Dialect
	text    string
	line    int
	tables  []*tableState
	byName  map[string]*tableState
	views   []*Table
	dropped []Dropped

	domains    map[string]*domainDef
	enums      map[string][]string
	otherTypes map[string]string // composite and range types: not modelled
	collations map[string]bool   // declared collation → nondeterministic
	matviews   map[string]bool
	indexes    map[string]*tableState // unique index name → its table
	pendingFKs []fkDef                // the foreign keys of the CREATE TABLE being read
	frozen     map[string]bool        // views whose columns freezeViews fixed
}

func newBuilder(d Dialect, text string) *ddlBuilder {
	return &ddlBuilder{d: d, text: text, byName: map[string]*tableState{},
		domains: map[string]*domainDef{}, enums: map[string][]string{}, otherTypes: map[string]string{},
		collations: map[string]bool{}, matviews: map[string]bool{}, indexes: map[string]*tableState{},
		frozen: map[string]bool{}}
}

func (b *ddlBuilder) norm(name string) string {
	if b.d == SQLite {
		return lower(name)
	}
	return name
}

func lower(s string) string {
	out := []byte(s)
	for i, c := range out {
		if c >= 'A' && c <= 'Z' {
			out[i] = c + 32
		}
	}
	return string(out)
}

// lookup finds a table by a RangeVar; its schema is ignored (pg_dump
// writes public.item), as one search path over the DDL's schemas would.
func (b *ddlBuilder) lookup(rv *pg.RangeVar) *tableState {
	if rv == nil {
		return nil
	}
	return b.byName[b.norm(rv.Relname)]
}

func (b *ddlBuilder) add(ts *tableState) error {
	k := b.norm(ts.t.Name)
	if _, dup := b.byName[k]; dup {
		return fmt.Errorf("catalog: table %q declared twice", ts.t.Name)
	}
	for _, v := range b.views {
		if b.norm(v.Name) == k {
			return fmt.Errorf("catalog: table %q declared twice", ts.t.Name)
		}
	}
	b.byName[k] = ts
	b.tables = append(b.tables, ts)
	return nil
}

func (t *Table) ordinal(name string, d Dialect) int {
	for i, c := range t.Columns {
		if c.Name == name || (d == SQLite && lower(c.Name) == lower(name)) {
			return i
		}
	}
	return -1
}

// colNames checks that each named column exists and returns the names as
// the table spells them.
func (b *ddlBuilder) colNames(t *Table, names []*pg.Node, what string, loc int32) ([]string, error) {
	out := make([]string, 0, len(names))
	for _, n := range names {
		name := n.GetString_().GetSval()
		o := t.ordinal(name, b.d)
		if o < 0 {
			return nil, fmt.Errorf("catalog: table %s: %s names unknown column %q at position %d", t.Name, what, name, loc+1)
		}
		out = append(out, t.Columns[o].Name)
	}
	return out, nil
}

func typeName(tn *pg.TypeName) string {
	if tn == nil || len(tn.Names) == 0 {
		return ""
	}
	// pg_catalog.int4 and friends: the last name is the type.
	return tn.Names[len(tn.Names)-1].GetString_().GetSval()
}

// typeMods writes a type's declared widths as "(p)" or "(p,s)"; empty
// when it has none (or any is not an integer). The refuter reads them
// from TypeSQL so that a counterexample's values fit the columns: a
// 3-character value in a char(1) column is no database PostgreSQL holds.
func typeMods(tn *pg.TypeName) string {
	if tn == nil || len(tn.Typmods) == 0 {
		return ""
	}
	mods := make([]string, len(tn.Typmods))
	for i, n := range tn.Typmods {
		iv := n.GetAConst().GetIval()
		if iv == nil {
			return ""
		}
		mods[i] = strconv.Itoa(int(iv.Ival))
	}
	return "(" + strings.Join(mods, ",") + ")"
}

func colTypeOf(tn *pg.TypeName, coll *pg.CollateClause) colType {
	ct := colType{name: typeName(tn), qualified: nodeNames(tn.GetNames()), mods: typeMods(tn), array: len(tn.GetArrayBounds()) > 0}
	if coll != nil {
		ct.collation = lastName(nodeNames(coll.Collname))
	}
	return ct
}

// newColumn appends a column declared by cd to ts and reads its
// constraints into ts.
func (b *ddlBuilder) newColumn(ts *tableState, cd *pg.ColumnDef) error {
	t := ts.t
	if o := t.ordinal(cd.Colname, b.d); o >= 0 {
		// INHERITS or PARTITION OF gave the column already: the local
		// definition merges into it (its constraints add up).
		if cd.IsNotNull {
			t.Columns[o].NotNull = true
		}
		if cd.CollClause != nil {
			ts.types[o].collation = lastName(nodeNames(cd.CollClause.Collname))
		}
		return b.columnConstraints(ts, o, cd.Constraints)
	}
	ct := colTypeOf(cd.TypeName, cd.CollClause)
	ct.line = b.line
	if b.d == SQLite && ct.name == sqliteUntyped {
		ct.name, ct.qualified = "", "" // declared without a type (sqliteColumnDefs)
	}
	col := Column{Name: cd.Colname, TypeSQL: ct.name + ct.mods, Type: TypeFromName(ct.name), NotNull: cd.IsNotNull, Ordinal: len(t.Columns)}
	if b.d == SQLite {
		// SQLite's affinity rules, not PostgreSQL's names: STRING is
		// NUMERIC, POINT INTEGER. pg_query's spellings (int4, float8,
		// bpchar) keep the letters the rules look for.
		col.Type = SQLiteTypeFromName(ct.name)
	}
	if b.d == SQLite && b.spelledInteger(cd.TypeName) {
		// pg_query reads INTEGER and INT alike (int4); SQLite does not:
		// only INTEGER PRIMARY KEY is the rowid alias (sqlitePrimaryKey).
		col.TypeSQL = "INTEGER"
	}
	if b.d == SQLite && ct.name == "float4" && !ct.array {
		// pg_query reads REAL (and FLOAT(p), p < 25) as float4, single
		// precision; SQLite's REAL is a double, as sqlitefile reads it.
		// Spelled float4, its values would be rounded to single
		// precision (the refuter's fit), and a counterexample would show
		// a difference SQLite does not make.
		col.TypeSQL = "REAL"
	}
	if b.d == Postgres && ct.array {
		// An array (int8[]) is none of the families: its values, its =
		// and its < are not the element type's.
		col.Type, col.TypeSQL = Unknown, ct.name+ct.mods+"[]"
	}
	t.Columns = append(t.Columns, col)
	ts.types = append(ts.types, ct)
	return b.columnConstraints(ts, col.Ordinal, cd.Constraints)
}

// spelledInteger says the type name at tn is written INTEGER (in any
// case) in the DDL text.
func (b *ddlBuilder) spelledInteger(tn *pg.TypeName) bool {
	if tn == nil || tn.Location < 0 || int(tn.Location)+7 > len(b.text) {
		return false
	}
	w := b.text[tn.Location : tn.Location+7]
	rest := b.text[tn.Location+7:]
	return strings.EqualFold(w, "integer") && (rest == "" || !isIdentByte(rest[0]))
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// columnConstraints reads the constraints written after a column. Their
// DEFERRABLE and INITIALLY attributes come as nodes of their own after
// the constraint they qualify.
func (b *ddlBuilder) columnConstraints(ts *tableState, o int, cons []*pg.Node) error {
	t := ts.t
	var list []*pg.Constraint
	for _, cn := range cons {
		pc := cn.GetConstraint()
		if pc == nil {
			continue
		}
		switch pc.Contype {
		case pg.ConstrType_CONSTR_ATTR_DEFERRABLE, pg.ConstrType_CONSTR_ATTR_DEFERRED:
			if len(list) > 0 {
				list[len(list)-1].Deferrable = true
			}
			continue
		case pg.ConstrType_CONSTR_ATTR_NOT_DEFERRABLE, pg.ConstrType_CONSTR_ATTR_IMMEDIATE:
			continue
		}
		// A column constraint names its column implicitly: work on a copy.
		c := proto.Clone(pc).(*pg.Constraint)
		self := []*pg.Node{pg.MakeStrNode(t.Columns[o].Name)}
		switch c.Contype {
		case pg.ConstrType_CONSTR_PRIMARY, pg.ConstrType_CONSTR_UNIQUE:
			c.Keys = self
		case pg.ConstrType_CONSTR_FOREIGN:
			c.FkAttrs = self
		}
		list = append(list, c)
	}
	for _, c := range list {
		switch c.Contype {
		case pg.ConstrType_CONSTR_NOTNULL:
			t.Columns[o].NotNull = true
		case pg.ConstrType_CONSTR_GENERATED:
			sql, err := deparseExpr(c.RawExpr)
			if err != nil {
				b.note(ts, "GENERATED column "+t.Columns[o].Name, "its expression cannot be read: "+err.Error())
				continue
			}
			t.Columns[o].Generated = sql
		case pg.ConstrType_CONSTR_NULL, pg.ConstrType_CONSTR_DEFAULT, pg.ConstrType_CONSTR_IDENTITY:
			// A default or identity only fills values not written.
		default:
			if b.d == SQLite && c.Contype == pg.ConstrType_CONSTR_PRIMARY && b.sqliteDescKey(c.Location) {
				t.IntegerKeyDesc = true
			}
			if err := b.addConstraint(ts, c, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// sqliteDescKey says the column constraint PRIMARY KEY at loc was
// written PRIMARY KEY DESC (sqliteToPG left sqliteKeyDesc after KEY).
func (b *ddlBuilder) sqliteDescKey(loc int32) bool {
	if loc < 0 || int(loc) >= len(b.text) {
		return false
	}
	rest := b.text[loc:]
	low := strings.ToLower(rest[:min(len(rest), 200)])
	k := strings.Index(low, "key")
	if k < 0 {
		return false
	}
	return strings.HasPrefix(strings.TrimLeft(rest[k+3:], " \t\r\n"), sqliteKeyDesc)
}

// addConstraint adds a table constraint (or a column's, with its column
// filled in). only says ALTER TABLE ONLY: the constraint is not added to
// the children too.
func (b *ddlBuilder) addConstraint(ts *tableState, c *pg.Constraint, only bool) error {
	t := ts.t
	deferrable := c.Deferrable || c.Initdeferred
	switch c.Contype {
	case pg.ConstrType_CONSTR_PRIMARY, pg.ConstrType_CONSTR_UNIQUE:
		primary := c.Contype == pg.ConstrType_CONSTR_PRIMARY
		what := "UNIQUE"
		if primary {
			what = "PRIMARY KEY"
		}
		if c.Indexname != "" {
			return b.keyUsingIndex(ts, c, primary, deferrable)
		}
		cols, err := b.colNames(t, c.Keys, what, c.Location)
		if err != nil {
			return err
		}
		if primary {
			for _, k := range ts.keys {
				if k.primary {
					return fmt.Errorf("catalog: table %s: more than one primary key at position %d", t.Name, c.Location+1)
				}
			}
			// SQLite lets a PRIMARY KEY column of a rowid table hold
			// NULLs (a legacy bug it keeps): finish decides there.
			for _, n := range cols {
				if b.d != SQLite {
					t.Columns[t.ordinal(n, b.d)].NotNull = true
				}
			}
		}
		if c.NullsNotDistinct {
			b.note(ts, what+" NULLS NOT DISTINCT", "two NULLs conflict under it, which the catalog cannot say")
		}
		name := c.Conname
		if name == "" {
			name = defaultConstraintName(t.Name, cols, primary)
		}
		ts.keys = append(ts.keys, keyDef{name: name, cols: cols, primary: primary, deferrable: deferrable})
		if !only {
			// A key on a partitioned table is one on each partition.
			for _, ch := range b.partitions(ts) {
				if err := b.addConstraint(ch, c, false); err != nil {
					return err
				}
			}
		}
	case pg.ConstrType_CONSTR_FOREIGN:
		cols, err := b.colNames(t, c.FkAttrs, "FOREIGN KEY", c.Location)
		if err != nil {
			return err
		}
		var refCols []string
		for _, n := range c.PkAttrs {
			refCols = append(refCols, n.GetString_().GetSval())
		}
		name := c.Conname
		if name == "" {
			name = t.Name + "_" + strings.Join(cols, "_") + "_fkey"
		}
		fk := fkDef{name: name, cols: cols, ref: c.Pktable.GetRelname(), refCols: refCols, deferrable: deferrable, loc: c.Location}
		if b.byName[b.norm(t.Name)] == ts {
			if err := b.checkForeignKey("ALTER TABLE "+t.Name, fk); err != nil {
				return err
			}
		} else {
			// CREATE TABLE: the engine adds its foreign keys once the
			// table and its keys exist (it may reference itself).
			b.pendingFKs = append(b.pendingFKs, fk)
		}
		if c.SkipValidation {
			// Rows from before it may not reference anything.
			return nil
		}
		ts.fks = append(ts.fks, fk)
		if !only {
			for _, ch := range b.partitions(ts) {
				if err := b.addConstraint(ch, c, false); err != nil {
					return err
				}
			}
		}
	case pg.ConstrType_CONSTR_CHECK:
		name := c.Conname
		if name == "" {
			name = t.Name + "_check"
		}
		// NOT VALID: new rows satisfy it, rows from before may not. It is
		// kept out of Checks (neither a fact nor a generator's duty: a
		// database violating it is one the engine may hold).
		ts.checks = append(ts.checks, checkDef{name: name, expr: c.RawExpr, notValid: c.SkipValidation, noInherit: c.IsNoInherit})
		if !only && !c.IsNoInherit {
			for _, ch := range b.children(ts) {
				if err := b.addConstraint(ch, c, false); err != nil {
					return err
				}
			}
		}
	case pg.ConstrType_CONSTR_EXCLUSION:
		b.note(ts, "EXCLUDE constraint "+c.Conname, "an exclusion constraint is not modelled")
	default:
		b.note(ts, "constraint "+c.Contype.String(), "not modelled")
	}
	return nil
}

// defaultConstraintName is the name PostgreSQL gives an unnamed key, so
// that a later DROP CONSTRAINT finds it.
func defaultConstraintName(table string, cols []string, primary bool) string {
	if primary {
		return table + "_pkey"
	}
	return table + "_" + strings.Join(cols, "_") + "_key"
}

// keyUsingIndex is ADD CONSTRAINT ... PRIMARY KEY / UNIQUE USING INDEX:
// the unique index becomes the constraint.
func (b *ddlBuilder) keyUsingIndex(ts *tableState, c *pg.Constraint, primary, deferrable bool) error {
	for i, k := range ts.keys {
		if k.index && k.name == c.Indexname {
			k.index, k.primary, k.deferrable = false, primary, deferrable
			if c.Conname != "" {
				k.name = c.Conname
			}
			if primary {
				for _, n := range k.cols {
					ts.t.Columns[ts.t.ordinal(n, b.d)].NotNull = true
				}
			}
			ts.keys[i] = k
			return nil
		}
	}
	b.note(ts, "constraint "+c.Conname+" USING INDEX "+c.Indexname, "the index is not a plain unique index the catalog read")
	return nil
}

// children are the tables that inherit from ts or are its partitions.
func (b *ddlBuilder) children(ts *tableState) []*tableState {
	var out []*tableState
	for _, c := range b.tables {
		for _, p := range c.t.Inherits {
			if b.norm(p) == b.norm(ts.t.Name) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// partitions are the children of a partitioned table.
func (b *ddlBuilder) partitions(ts *tableState) []*tableState {
	if !ts.t.Partitioned {
		return nil
	}
	return b.children(ts)
}

func (b *ddlBuilder) createTable(cs *pg.CreateStmt) error {
	ts := &tableState{t: &Table{Name: cs.Relation.GetRelname()}}
	if cs.OfTypename != nil {
		b.note(ts, "CREATE TABLE OF "+typeName(cs.OfTypename), "a typed table's columns come from the type")
	}
	var parents []*tableState
	for _, in := range cs.InhRelations {
		rv := in.GetRangeVar()
		p := b.lookup(rv)
		if p == nil {
			return fmt.Errorf("catalog: table %s: inherits from unknown table %q", ts.t.Name, rv.GetRelname())
		}
		parents = append(parents, p)
		ts.t.Inherits = append(ts.t.Inherits, p.t.Name)
		b.inheritColumns(ts, p, cs.Partbound != nil)
	}
	var tableCons []*pg.Node
	for _, elt := range cs.TableElts {
		switch e := elt.Node.(type) {
		case *pg.Node_ColumnDef:
			if err := b.newColumn(ts, e.ColumnDef); err != nil {
				return err
			}
		case *pg.Node_Constraint:
			// A table constraint may name a column declared after it.
			tableCons = append(tableCons, elt)
		case *pg.Node_TableLikeClause:
			b.note(ts, "LIKE "+e.TableLikeClause.Relation.GetRelname(), "columns copied with LIKE are not read")
		}
	}
	for _, n := range append(tableCons, cs.Constraints...) {
		if c := n.GetConstraint(); c != nil {
			if err := b.addConstraint(ts, c, true); err != nil {
				return err
			}
		}
	}
	if b.d == SQLite {
		for _, o := range cs.Options {
			if o.GetDefElem().GetDefname() == sqliteWithoutRowID {
				ts.t.WithoutRowID = true // sqliteToPG's WITHOUT ROWID
			}
		}
	}
	if cs.Partspec != nil {
		ts.t.Partitioned = true
		ts.partKeys = cs.Partspec.PartParams
		ts.partStrat = cs.Partspec.Strategy
	}
	if err := b.add(ts); err != nil {
		return err
	}
	pending := b.pendingFKs
	b.pendingFKs = nil
	for _, fk := range pending {
		if err := b.checkForeignKey("CREATE TABLE "+ts.t.Name, fk); err != nil {
			return err
		}
	}
	if cs.Partbound != nil && len(parents) == 1 {
		b.setBound(ts, parents[0], cs.Partbound)
	}
	return nil
}

// inheritColumns gives ts the columns of parent p and the constraints a
// child inherits: NOT NULL and CHECKs (not NO INHERIT ones); a partition
// gets its partitioned table's keys and foreign keys too, as PostgreSQL
// creates them on each partition.
func (b *ddlBuilder) inheritColumns(ts, p *tableState, partition bool) {
	t := ts.t
	for i, c := range p.t.Columns {
		if o := t.ordinal(c.Name, b.d); o >= 0 {
			t.Columns[o].NotNull = t.Columns[o].NotNull || c.NotNull
			continue
		}
		c.Ordinal = len(t.Columns)
		c.Enum = append([]string(nil), c.Enum...)
		t.Columns = append(t.Columns, c)
		ts.types = append(ts.types, p.types[i])
	}
	for _, ck := range p.checks {
		if !ck.noInherit {
			ts.checks = append(ts.checks, ck)
		}
	}
	if partition {
		for _, k := range p.keys {
			if !k.index {
				ts.keys = append(ts.keys, k)
			}
		}
		ts.fks = append(ts.fks, p.fks...)
	}
}
