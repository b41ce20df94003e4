package catalog

import (
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// alterTable reads ALTER TABLE [ONLY] t ...: how pg_dump adds every key,
// foreign key and partition.
func (b *ddlBuilder) alterTable(as *pg.AlterTableStmt) error {
	if as.Objtype != pg.ObjectType_OBJECT_TABLE {
		// ALTER INDEX ... ATTACH PARTITION, ALTER SEQUENCE, ALTER VIEW
		// ... OWNER: nothing a query over the tables sees.
		return nil
	}
	ts := b.lookup(as.Relation)
	if ts == nil {
		if as.MissingOk || b.matviews[b.norm(as.Relation.GetRelname())] {
			return nil
		}
		b.drop("ALTER TABLE on unknown table " + as.Relation.GetRelname())
		return nil
	}
	only := !as.Relation.Inh
	for _, cn := range as.Cmds {
		cmd := cn.GetAlterTableCmd()
		if cmd == nil {
			continue
		}
		if err := b.alterCmd(ts, cmd, only); err != nil {
			return err
		}
	}
	return nil
}

// alterCmd applies one command of ALTER TABLE to ts (only: not to its
// children).
func (b *ddlBuilder) alterCmd(ts *tableState, cmd *pg.AlterTableCmd, only bool) error {
	if alterNothing[cmd.Subtype] {
		// Defaults, identity, storage, ownership, triggers enabled or not
		// (a trigger's own CREATE TRIGGER is what is reported): nothing
		// the catalog models changes.
		return nil
	}
	if n, ok := alterNoted[cmd.Subtype]; ok {
		subject := n.subject
		if n.named {
			subject += cmd.Name
		}
		b.note(ts, subject, n.why)
		return nil
	}
	switch cmd.Subtype {
	case pg.AlterTableType_AT_AddConstraint:
		if c := cmd.Def.GetConstraint(); c != nil {
			return b.addConstraint(ts, c, only)
		}
	case pg.AlterTableType_AT_DropConstraint:
		b.dropConstraint(ts, cmd.Name, cmd.MissingOk, only)
	case pg.AlterTableType_AT_ValidateConstraint:
		for i, ck := range ts.checks {
			if ck.name == cmd.Name {
				ts.checks[i].notValid = false
			}
		}
	case pg.AlterTableType_AT_SetNotNull, pg.AlterTableType_AT_DropNotNull,
		pg.AlterTableType_AT_AlterColumnType, pg.AlterTableType_AT_DropExpression:
		b.alterColumn(ts, cmd, only)
	case pg.AlterTableType_AT_AddColumn:
		if cd := cmd.Def.GetColumnDef(); cd != nil {
			return b.alterAddColumn(ts, cd, only)
		}
	case pg.AlterTableType_AT_AttachPartition, pg.AlterTableType_AT_DetachPartition,
		pg.AlterTableType_AT_DropInherit, pg.AlterTableType_AT_AddInherit:
		return b.alterInherit(ts, cmd)
	default:
		b.note(ts, "ALTER TABLE "+cmd.Subtype.String(), "not modelled")
	}
	return nil
}

// alterNothing are the commands of ALTER TABLE that change nothing the
// catalog models.
var alterNothing = map[pg.AlterTableType]bool{}

func init() {
	for _, t := range []pg.AlterTableType{
		pg.AlterTableType_AT_ColumnDefault, pg.AlterTableType_AT_CookedColumnDefault,
		pg.AlterTableType_AT_AddIdentity, pg.AlterTableType_AT_SetIdentity, pg.AlterTableType_AT_DropIdentity,
		pg.AlterTableType_AT_ChangeOwner, pg.AlterTableType_AT_SetStatistics, pg.AlterTableType_AT_SetOptions,
		pg.AlterTableType_AT_ResetOptions, pg.AlterTableType_AT_SetStorage, pg.AlterTableType_AT_SetCompression,
		pg.AlterTableType_AT_ClusterOn, pg.AlterTableType_AT_DropCluster, pg.AlterTableType_AT_SetLogged,
		pg.AlterTableType_AT_SetUnLogged, pg.AlterTableType_AT_SetAccessMethod, pg.AlterTableType_AT_SetTableSpace,
		pg.AlterTableType_AT_SetRelOptions, pg.AlterTableType_AT_ResetRelOptions, pg.AlterTableType_AT_ReplaceRelOptions,
		pg.AlterTableType_AT_ReplicaIdentity, pg.AlterTableType_AT_DisableRowSecurity, pg.AlterTableType_AT_NoForceRowSecurity,
		pg.AlterTableType_AT_EnableTrig, pg.AlterTableType_AT_EnableAlwaysTrig, pg.AlterTableType_AT_EnableReplicaTrig,
		pg.AlterTableType_AT_DisableTrig, pg.AlterTableType_AT_EnableTrigAll, pg.AlterTableType_AT_DisableTrigAll,
		pg.AlterTableType_AT_EnableTrigUser, pg.AlterTableType_AT_DisableTrigUser, pg.AlterTableType_AT_DisableRule,
		pg.AlterTableType_AT_GenericOptions, pg.AlterTableType_AT_AlterColumnGenericOptions,
	} {
		alterNothing[t] = true
	}
}

// alterNoted are the commands of ALTER TABLE the catalog does not model
// but notes, as subject (followed by the command's name where named)
// and why.
var alterNoted = map[pg.AlterTableType]struct {
	subject string
	named   bool
	why     string
}{
	pg.AlterTableType_AT_EnableRowSecurity: {"ENABLE ROW LEVEL SECURITY", false, "row security policies filter the rows a query sees"},
	pg.AlterTableType_AT_ForceRowSecurity:  {"ENABLE ROW LEVEL SECURITY", false, "row security policies filter the rows a query sees"},
	pg.AlterTableType_AT_EnableRule:        {"ENABLE RULE ", true, "a rule rewrites the queries over the table"},
	pg.AlterTableType_AT_EnableAlwaysRule:  {"ENABLE RULE ", true, "a rule rewrites the queries over the table"},
	pg.AlterTableType_AT_DropColumn:        {"DROP COLUMN ", true, "dropping columns after creation is not modelled"},
	pg.AlterTableType_AT_AddOf:             {"OF type", false, "a typed table's columns come from the type"},
}

// alterColumn applies ALTER COLUMN's SET and DROP NOT NULL, TYPE and
// DROP EXPRESSION.
func (b *ddlBuilder) alterColumn(ts *tableState, cmd *pg.AlterTableCmd, only bool) {
	t := ts.t
	o := t.ordinal(cmd.Name, b.d)
	if o < 0 {
		b.note(ts, "ALTER TABLE ... ALTER COLUMN "+cmd.Name, "no such column")
		return
	}
	switch cmd.Subtype {
	case pg.AlterTableType_AT_SetNotNull:
		t.Columns[o].NotNull = true
		if !only {
			for _, ch := range b.children(ts) {
				b.alterCmd(ch, cmd, false)
			}
		}
	case pg.AlterTableType_AT_DropNotNull:
		t.Columns[o].NotNull = false
		for _, k := range ts.keys {
			if k.primary && !k.deferrable && contains(k.cols, t.Columns[o].Name) {
				b.note(ts, "DROP NOT NULL on primary key column "+cmd.Name, "PostgreSQL refuses it")
			}
		}
	case pg.AlterTableType_AT_AlterColumnType:
		if cd := cmd.Def.GetColumnDef(); cd != nil && cd.TypeName != nil {
			ct := colTypeOf(cd.TypeName, cd.CollClause)
			if ct.collation == "" {
				ct.collation = ts.types[o].collation
			}
			ts.types[o] = ct
			t.Columns[o].Type, t.Columns[o].TypeSQL = TypeFromName(ct.name), ct.name+ct.mods
		}
	case pg.AlterTableType_AT_DropExpression:
		t.Columns[o].Generated = ""
	}
}

// alterAddColumn adds column cd to ts and, unless only, its children,
// freezing the views over them first.
func (b *ddlBuilder) alterAddColumn(ts *tableState, cd *pg.ColumnDef, only bool) error {
	t := ts.t
	changing := map[string]bool{b.norm(t.Name): true}
	if !only {
		for _, ch := range b.children(ts) {
			changing[b.norm(ch.t.Name)] = true
		}
	}
	b.freezeViews(changing, "ALTER TABLE "+t.Name+" ADD COLUMN "+cd.Colname)
	if err := b.newColumn(ts, cd); err != nil {
		return err
	}
	if !only {
		for _, ch := range b.children(ts) {
			if err := b.newColumn(ch, cd); err != nil {
				return err
			}
		}
	}
	return nil
}

// alterInherit applies ATTACH and DETACH PARTITION, INHERIT and NO
// INHERIT.
func (b *ddlBuilder) alterInherit(ts *tableState, cmd *pg.AlterTableCmd) error {
	t := ts.t
	switch cmd.Subtype {
	case pg.AlterTableType_AT_AttachPartition:
		pc := cmd.Def.GetPartitionCmd()
		ch := b.lookup(pc.GetName())
		if ch == nil {
			return fmt.Errorf("catalog: ALTER TABLE %s ATTACH PARTITION names unknown table %q", t.Name, pc.GetName().GetRelname())
		}
		ch.t.Inherits = []string{t.Name}
		b.setBound(ch, ts, pc.Bound)
	case pg.AlterTableType_AT_DetachPartition, pg.AlterTableType_AT_DropInherit:
		if ch := b.lookup(cmd.Def.GetPartitionCmd().GetName()); ch != nil && cmd.Subtype == pg.AlterTableType_AT_DetachPartition {
			ch.t.Inherits, ch.t.PartitionBound, ch.bound = nil, "", nil
		} else if p := b.lookup(cmd.Def.GetRangeVar()); p != nil {
			t.Inherits = removeName(t.Inherits, p.t.Name, b.norm)
		}
	case pg.AlterTableType_AT_AddInherit:
		if p := b.lookup(cmd.Def.GetRangeVar()); p != nil {
			t.Inherits = append(t.Inherits, p.t.Name)
			b.inheritColumns(ts, p, false)
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func removeName(list []string, name string, norm func(string) string) []string {
	var out []string
	for _, x := range list {
		if norm(x) != norm(name) {
			out = append(out, x)
		}
	}
	return out
}

// dropConstraint removes the named key, foreign key or CHECK. A name the
// loader does not know might be a constraint it would otherwise trust
// under another name, so the table is marked unmodelled.
func (b *ddlBuilder) dropConstraint(ts *tableState, name string, missingOK, only bool) {
	found := false
	for i := 0; i < len(ts.keys); i++ {
		if ts.keys[i].name == name && !ts.keys[i].index {
			ts.keys = append(ts.keys[:i], ts.keys[i+1:]...)
			i--
			found = true
		}
	}
	for i := 0; i < len(ts.fks); i++ {
		if ts.fks[i].name == name {
			ts.fks = append(ts.fks[:i], ts.fks[i+1:]...)
			i--
			found = true
		}
	}
	for i := 0; i < len(ts.checks); i++ {
		if ts.checks[i].name == name {
			ts.checks = append(ts.checks[:i], ts.checks[i+1:]...)
			i--
			found = true
		}
	}
	if !only {
		for _, ch := range b.children(ts) {
			b.dropConstraint(ch, name, true, false)
		}
	}
	if !found && !missingOK {
		b.note(ts, "DROP CONSTRAINT "+name, "the loader does not know which constraint this names")
	}
}

// rename reads ALTER TABLE ... RENAME: renaming is rare in schema files
// and would need every constraint's expressions rewritten, so a renamed
// table or column is marked unmodelled.
func (b *ddlBuilder) rename(rs *pg.RenameStmt) {
	switch rs.RenameType {
	case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_COLUMN, pg.ObjectType_OBJECT_TABCONSTRAINT:
		b.tableNote(rs.Relation, "RENAME "+rs.Subname+" TO "+rs.Newname, "renaming after creation is not modelled")
	case pg.ObjectType_OBJECT_INDEX, pg.ObjectType_OBJECT_SEQUENCE:
	default:
		b.drop("ALTER ... RENAME of a " + rs.RenameType.String() + " is not read")
	}
}

// dropStmt reads DROP INDEX (a unique index stops being a fact) and marks
// other drops as not read.
func (b *ddlBuilder) dropStmt(ds *pg.DropStmt) {
	switch ds.RemoveType {
	case pg.ObjectType_OBJECT_INDEX:
		for _, o := range ds.Objects {
			name := lastName(nodeNames(o.GetList().GetItems()))
			ts := b.indexes[name]
			if ts == nil {
				continue
			}
			for i := 0; i < len(ts.keys); i++ {
				if ts.keys[i].index && ts.keys[i].name == name {
					ts.keys = append(ts.keys[:i], ts.keys[i+1:]...)
					i--
				}
			}
			for i := 0; i < len(ts.uidx); i++ {
				if ts.uidx[i].name == name {
					ts.uidx = append(ts.uidx[:i], ts.uidx[i+1:]...)
					i--
				}
			}
		}
	case pg.ObjectType_OBJECT_SEQUENCE, pg.ObjectType_OBJECT_FUNCTION, pg.ObjectType_OBJECT_EXTENSION,
		pg.ObjectType_OBJECT_SCHEMA, pg.ObjectType_OBJECT_ROLE, pg.ObjectType_OBJECT_STATISTIC_EXT:
	default:
		b.drop("DROP " + ds.RemoveType.String() + " is not read")
	}
}
