package tag

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pgequiv/pgequiv/internal/sqltext"
)

// Class says what a statement does, for deciding whether a reference
// applies to it and whether it can be judged at all.
type Class uint8

const (
	// ClassUnknown: the statement did not parse; it is judged (or not)
	// as a whole, and the judge reports why it cannot read it.
	ClassUnknown Class = iota
	// ClassQuery is a read-only query: SELECT, VALUES, TABLE without
	// INTO and without a data-modifying WITH.
	ClassQuery
	// ClassWrite changes data or state: INSERT, UPDATE, DELETE, MERGE,
	// SELECT INTO, a data-modifying WITH, FOR UPDATE/SHARE, nextval(),
	// set_config(), ... A session reference applies to it, and it is
	// never equivalent to a query.
	ClassWrite
	// ClassEffect changes the database or runs code: DDL, DO, CALL,
	// COPY, EXECUTE, EXPLAIN ANALYZE of a write, ...
	ClassEffect
	// ClassOther neither reads nor writes data: BEGIN, SET, SHOW,
	// EXPLAIN, PREPARE, ...; a session reference does not apply.
	ClassOther
	// ClassRun runs code or moves data the proxy cannot see: DO, CALL,
	// EXECUTE, COPY, CREATE TABLE AS, REFRESH MATERIALIZED VIEW, EXPLAIN
	// ANALYZE of a write. A session reference applies to it (it may run any
	// query or data change), and it is never equivalent to a query.
	ClassRun
)

// HasSideEffects reports whether running the statement can change
// something: such a statement is never equivalent to a reference.
func (c Class) HasSideEffects() bool { return c == ClassWrite || c == ClassEffect || c == ClassRun }

// IsQuery reports whether a session reference applies to the statement:
// a query or a data change, or a statement that may run either.
func (c Class) IsQuery() bool { return c == ClassQuery || c == ClassWrite || c == ClassRun }

// harmless are the utility statements that change neither data nor the
// schema nor run user code.
var harmless = map[string]bool{
	"TransactionStmt": true, "VariableSetStmt": true, "VariableShowStmt": true,
	"PrepareStmt": true, "DeallocateStmt": true, "DiscardStmt": true,
	"DeclareCursorStmt": true, "FetchStmt": true, "ClosePortalStmt": true,
	"ListenStmt": true, "UnlistenStmt": true, "LockStmt": true,
	"ConstraintsSetStmt": true, "ExplainStmt": true,
}

// effectNames are how statements with side effects are named to users.
var effectNames = map[string]string{
	"DoStmt": "DO", "CallStmt": "CALL", "CopyStmt": "COPY", "ExecuteStmt": "EXECUTE",
	"TruncateStmt": "TRUNCATE", "CreateTableAsStmt": "CREATE TABLE AS", "NotifyStmt": "NOTIFY",
	"VacuumStmt": "VACUUM", "ClusterStmt": "CLUSTER", "ReindexStmt": "REINDEX",
	"RefreshMatViewStmt": "REFRESH MATERIALIZED VIEW", "CheckPointStmt": "CHECKPOINT",
	"GrantStmt": "GRANT/REVOKE", "GrantRoleStmt": "GRANT/REVOKE",
}

// Classify says what the parsed statement n does; why names the side
// effect for ClassWrite and ClassEffect ("DELETE in a WITH clause",
// "DDL (CreateStmt)", "CALL").
func Classify(n *pg.Node) (c Class, why string) {
	if n == nil || n.Node == nil {
		return ClassUnknown, ""
	}
	name := string(n.ProtoReflect().WhichOneof(n.ProtoReflect().Descriptor().Oneofs().Get(0)).Message().Name())
	switch name {
	case "SelectStmt":
		if w := writeInside(n.ProtoReflect(), true); w != "" {
			return ClassWrite, w
		}
		return ClassQuery, ""
	case "InsertStmt", "UpdateStmt", "DeleteStmt", "MergeStmt":
		return ClassWrite, strings.ToUpper(strings.TrimSuffix(name, "Stmt"))
	case "ExplainStmt":
		e := n.GetExplainStmt()
		for _, o := range e.GetOptions() {
			if d := o.GetDefElem(); d != nil && strings.EqualFold(d.Defname, "analyze") && !isFalse(d.Arg) {
				if c, why := Classify(e.Query); c.HasSideEffects() {
					// It runs the write: a session reference applies.
					return ClassRun, "EXPLAIN ANALYZE of " + why
				}
			}
		}
		return ClassOther, ""
	}
	if harmless[name] {
		return ClassOther, ""
	}
	switch name {
	case "DoStmt", "CallStmt", "ExecuteStmt", "CopyStmt",
		// These run a query, and write what it returns:
		"CreateTableAsStmt", "RefreshMatViewStmt":
		return ClassRun, effectNames[name]
	case "TruncateStmt":
		return ClassWrite, effectNames[name] // a data change, as DELETE is
	}
	if nice, ok := effectNames[name]; ok {
		return ClassEffect, nice
	}
	return ClassEffect, "DDL (" + name + ")"
}

func isFalse(n *pg.Node) bool {
	if n == nil {
		return false
	}
	if b := n.GetBoolean(); b != nil {
		return !b.Boolval
	}
	if s := n.GetString_(); s != nil {
		v := strings.ToLower(s.Sval)
		return v == "false" || v == "off" || v == "0" || v == "no"
	}
	if c := n.GetAConst(); c != nil {
		if i := c.GetIval(); i != nil {
			return i.Ival == 0
		}
	}
	return false
}

// writeInside finds a side effect anywhere inside a query, as the
// planner counts them (build.ErrSideEffects): a data-modifying WITH
// (PostgreSQL runs it even when the outer query does not read its
// result), an INTO clause, FOR UPDATE/SHARE, a call of a function that
// changes state.
func writeInside(m protoreflect.Message, top bool) string {
	if !top {
		switch m.Descriptor().Name() {
		case "InsertStmt", "UpdateStmt", "DeleteStmt", "MergeStmt":
			return strings.ToUpper(strings.TrimSuffix(string(m.Descriptor().Name()), "Stmt")) + " in a WITH clause"
		case "IntoClause":
			return "SELECT INTO"
		case "LockingClause":
			return "SELECT ... FOR UPDATE/SHARE (row locks)"
		case "FuncCall":
			// The functions the planner refuses for their side effects
			// (sqltext.SideEffectFuncs): a sequence, a setting, a lock.
			if f, ok := m.Interface().(*pg.FuncCall); ok && len(f.Funcname) > 0 {
				if s := f.Funcname[len(f.Funcname)-1].GetString_(); s != nil && sqltext.SideEffectFuncs[strings.ToLower(s.Sval)] {
					return "a call of " + strings.ToLower(s.Sval)
				}
			}
		}
	}
	found := ""
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Message() == nil || fd.IsMap() {
			return true
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len() && found == ""; i++ {
				found = writeInside(l.Get(i).Message(), false)
			}
		} else {
			found = writeInside(v.Message(), false)
		}
		return found == ""
	})
	return found
}
