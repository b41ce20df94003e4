package catalog

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// Dropped is a statement (or part of one) the loader read but could not
// model: what it was and the 1-based line of the DDL it starts on. Where
// it changes what a query over a table sees or what data the table may
// hold, the table's Unmodelled names it too, and no verdict reading the
// table is proved or refuted.
type Dropped struct {
	Line int
	What string
}

func (d Dropped) String() string { return fmt.Sprintf("line %d: %s", d.Line, d.What) }

// LoadDDL builds a schema from PostgreSQL DDL (or SQLite DDL with d ==
// SQLite); see LoadDDLReport for what it reads. What it cannot model is
// recorded in the tables' Unmodelled; LoadDDLReport lists it too.
func LoadDDL(ddl string, d Dialect) (*Schema, error) {
	s, _, err := LoadDDLReport(ddl, d)
	return s, err
}

// LoadDDLReport builds a schema from DDL as pg_dump --schema-only writes
// it or as people write it by hand: CREATE TABLE with every column and
// table constraint (keys, foreign keys, CHECKs, GENERATED, COLLATE,
// DEFERRABLE, NOT VALID), INHERITS, PARTITION BY and PARTITION OF;
// ALTER TABLE [ONLY] ADD/DROP CONSTRAINT, ALTER COLUMN SET/DROP NOT NULL,
// ADD COLUMN, ATTACH PARTITION, VALIDATE CONSTRAINT; CREATE [UNIQUE]
// INDEX (expression and partial ones too); CREATE DOMAIN, CREATE TYPE ...
// AS ENUM, ALTER TYPE ... ADD VALUE, CREATE COLLATION; CREATE VIEW.
// Statements that cannot change a query's meaning (SET, COMMENT, GRANT,
// OWNER TO, sequences, extensions, schemas, functions) load silently.
// Anything else is returned as Dropped; one that bears on a table (a row
// security policy, a rule, a trigger, an exclusion constraint, a HASH or
// DEFAULT partition, a column of an unknown type, ...) is also put in
// that table's Unmodelled. An error means the DDL is not well formed (it
// does not parse, or names a column or table that does not exist).
func LoadDDLReport(ddl string, d Dialect) (*Schema, []Dropped, error) {
	text := blankPsqlMeta(ddl)
	if d == SQLite {
		text = sqliteColumnDefs(sqliteToPG(text))
	}
	tree, err := pg.Parse(text)
	if err != nil {
		if d == Postgres {
			err = syntaxError(text, err) // SQLite's text was rewritten: its offsets are not the file's
		}
		return nil, nil, fmt.Errorf("catalog: parse DDL: %w", err)
	}
	stmts, undone, err := committed(tree.Stmts, d, func(raw *pg.RawStmt) int { return lineAt(text, raw.StmtLocation) })
	if err != nil {
		return nil, nil, err
	}
	b := newBuilder(d, text)
	b.dropped = undone
	for _, raw := range stmts {
		b.line = lineAt(text, raw.StmtLocation)
		if err := b.statement(raw.Stmt); err != nil {
			return nil, nil, err
		}
	}
	tables, err := b.finish()
	if err != nil {
		return nil, nil, err
	}
	s, err := NewSchema(d, tables)
	if err != nil {
		return nil, nil, err
	}
	return s, b.dropped, nil
}

// ParseSQLiteTable reads one CREATE TABLE statement of SQLite DDL, as
// sqlite_master holds it, and the CREATE INDEX statements on the table,
// for what SQLite's pragmas do not say: its columns' collations, its
// CHECKs and its expression and partial unique indexes. Its foreign keys
// are not resolved (the tables they name are not at hand).
func ParseSQLiteTable(createTable string, indexes ...string) (*Table, error) {
	all := createTable
	for _, ix := range indexes {
		all += ";\n" + ix
	}
	text := sqliteColumnDefs(sqliteToPG(blankPsqlMeta(all)))
	tree, err := pg.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("catalog: parse SQLite DDL: %w", err)
	}
	b := newBuilder(SQLite, text)
	for _, raw := range tree.Stmts {
		if cs := raw.Stmt.GetCreateStmt(); cs != nil {
			if err := b.createTable(cs); err != nil {
				return nil, err
			}
		}
		if is := raw.Stmt.GetIndexStmt(); is != nil && len(b.tables) == 1 {
			if err := b.createIndex(is); err != nil {
				return nil, err
			}
		}
	}
	if len(b.tables) != 1 {
		return nil, fmt.Errorf("catalog: %d tables in one CREATE TABLE", len(b.tables))
	}
	b.tables[0].fks = nil
	tables, err := b.finish()
	if err != nil {
		return nil, err
	}
	return tables[0], nil
}

// lineAt is the 1-based line of byte offset off in text.
func lineAt(text string, off int32) int {
	if off < 0 || int(off) > len(text) {
		return 1
	}
	// A statement's location is where the previous one's ';' left off:
	// skip the blank lines and comments before its first word.
	i := int(off)
	for i < len(text) {
		switch {
		case text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r':
			i++
		case strings.HasPrefix(text[i:], "--"):
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				i = len(text)
			} else {
				i += j + 1
			}
		default:
			return 1 + strings.Count(text[:i], "\n")
		}
	}
	return 1 + strings.Count(text[:i], "\n")
}

// statement reads one DDL statement.
func (b *ddlBuilder) statement(n *pg.Node) error {
	switch st := n.Node.(type) {
	case *pg.Node_CreateStmt:
		return b.createTable(st.CreateStmt)
	case *pg.Node_ViewStmt:
		return b.createView(st.ViewStmt)
	case *pg.Node_IndexStmt:
		return b.createIndex(st.IndexStmt)
	case *pg.Node_AlterTableStmt:
		return b.alterTable(st.AlterTableStmt)
	case *pg.Node_CreateDomainStmt:
		b.createDomain(st.CreateDomainStmt)
	case *pg.Node_AlterDomainStmt:
		b.alterDomain(st.AlterDomainStmt)
	case *pg.Node_CreateEnumStmt:
		b.createEnum(st.CreateEnumStmt)
	case *pg.Node_AlterEnumStmt:
		b.alterEnum(st.AlterEnumStmt)
	case *pg.Node_DefineStmt:
		b.define(st.DefineStmt)
	case *pg.Node_CompositeTypeStmt:
		// A composite type's values are rows: a column of it is not
		// modelled (resolveTypes reports it), the type itself is harmless.
		b.otherTypes[lastName(qualifiedName(st.CompositeTypeStmt.Typevar))] = "composite type"
	case *pg.Node_CreateRangeStmt:
		b.otherTypes[lastName(nodeNames(st.CreateRangeStmt.TypeName))] = "range type"
	case *pg.Node_CreatePolicyStmt:
		b.tableNote(st.CreatePolicyStmt.Table, "CREATE POLICY "+st.CreatePolicyStmt.PolicyName, "a row security policy filters the rows a query sees")
	case *pg.Node_RuleStmt:
		b.tableNote(st.RuleStmt.Relation, "CREATE RULE "+st.RuleStmt.Rulename, "a rule rewrites the queries and changes over the table")
	case *pg.Node_CreateTrigStmt:
		b.tableNote(st.CreateTrigStmt.Relation, "CREATE TRIGGER "+st.CreateTrigStmt.Trigname, "a trigger may change or refuse the rows written")
	case *pg.Node_CreateTableAsStmt:
		if into := st.CreateTableAsStmt.Into; into != nil {
			b.matviews[b.norm(into.Rel.GetRelname())] = true
			b.drop("CREATE " + strings.ToUpper(strings.TrimPrefix(st.CreateTableAsStmt.Objtype.String(), "OBJECT_")) + " " + into.Rel.GetRelname() + " AS: its columns are not read, so queries over it do not plan")
		}
	case *pg.Node_RenameStmt:
		b.rename(st.RenameStmt)
	case *pg.Node_DropStmt:
		b.dropStmt(st.DropStmt)
	case *pg.Node_VariableSetStmt, *pg.Node_SelectStmt, *pg.Node_CommentStmt, *pg.Node_AlterOwnerStmt,
		*pg.Node_GrantStmt, *pg.Node_GrantRoleStmt, *pg.Node_CreateSeqStmt, *pg.Node_AlterSeqStmt,
		*pg.Node_CreateExtensionStmt, *pg.Node_CreateSchemaStmt, *pg.Node_AlterDefaultPrivilegesStmt,
		*pg.Node_CreateFunctionStmt, *pg.Node_InsertStmt, *pg.Node_CopyStmt, *pg.Node_TransactionStmt,
		*pg.Node_VariableShowStmt, *pg.Node_CreateRoleStmt, *pg.Node_AlterRoleStmt, *pg.Node_CreateStatsStmt,
		*pg.Node_SecLabelStmt, *pg.Node_AlterObjectSchemaStmt, *pg.Node_AlterFunctionStmt, *pg.Node_DoStmt,
		*pg.Node_CreateCastStmt, *pg.Node_AlterExtensionStmt, *pg.Node_CreatePublicationStmt,
		*pg.Node_CreateEventTrigStmt, *pg.Node_ClusterStmt, *pg.Node_VacuumStmt, *pg.Node_AlterCollationStmt,
		*pg.Node_CreateOpClassStmt, *pg.Node_CreateOpFamilyStmt, *pg.Node_CreateConversionStmt,
		*pg.Node_CreateTableSpaceStmt, *pg.Node_CreatedbStmt, *pg.Node_AlterDatabaseSetStmt, *pg.Node_AlterDatabaseStmt:
		// Cannot change what a query over the tables returns, or what
		// data the tables may hold.
	default:
		b.drop(statementKind(n) + " is not read")
	}
	return nil
}

// statementKind names a statement's node for a report: "CreateForeignTableStmt".
func statementKind(n *pg.Node) string {
	s := fmt.Sprintf("%T", n.Node)
	s = strings.TrimPrefix(s, "*pg_query.Node_")
	return s
}

// drop records a statement the loader did not model.
func (b *ddlBuilder) drop(what string) {
	b.dropped = append(b.dropped, Dropped{Line: b.line, What: what})
}

// note records something about table t that the catalog does not model:
// the judge will neither prove nor refute a pair that reads t.
func (b *ddlBuilder) note(ts *tableState, what, why string) { b.noteAt(ts, b.line, what, why) }

// noteAt is note for something declared at line.
func (b *ddlBuilder) noteAt(ts *tableState, line int, what, why string) {
	msg := fmt.Sprintf("%s (line %d): %s", what, line, why)
	for _, u := range ts.unmodelled {
		if u == msg {
			return
		}
	}
	ts.unmodelled = append(ts.unmodelled, msg)
	b.dropped = append(b.dropped, Dropped{Line: line, What: fmt.Sprintf("%s on %s: %s", what, ts.t.Name, why)})
}

// tableNote is note for a statement that names its table.
func (b *ddlBuilder) tableNote(rv *pg.RangeVar, what, why string) {
	ts := b.lookup(rv)
	if ts == nil {
		b.drop(fmt.Sprintf("%s on unknown table %s", what, rv.GetRelname()))
		return
	}
	b.note(ts, what, why)
}

// qualifiedName is schema.name of a RangeVar, or name alone.
func qualifiedName(rv *pg.RangeVar) string {
	if rv == nil {
		return ""
	}
	if rv.Schemaname != "" {
		return rv.Schemaname + "." + rv.Relname
	}
	return rv.Relname
}

// nodeNames joins a qualified name list (String nodes) with dots.
func nodeNames(ns []*pg.Node) string {
	parts := make([]string, 0, len(ns))
	for _, n := range ns {
		parts = append(parts, n.GetString_().GetSval())
	}
	return strings.Join(parts, ".")
}

// lastName is the unqualified part of a dotted name: types, domains and
// collations are looked up by it, as one search path would find them.
func lastName(s string) string {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		return s[i+1:]
	}
	return s
}
