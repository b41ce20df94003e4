package tag

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// Session settings the proxy consumes instead of forwarding.
const (
	SettingReference   = "pgequiv.reference"
	SettingReferenceID = "pgequiv.reference_id"
)

// SessionCommand is a SET or RESET of a pgequiv setting.
type SessionCommand struct {
	// Name is SettingReference or SettingReferenceID; empty with All.
	Name string
	// Value is the new value; Reset clears it.
	Value string
	Reset bool
	// All is RESET ALL, which clears pgequiv's settings and must still
	// reach the server.
	All bool
	// Tag is the command tag PostgreSQL would answer with.
	Tag string
	// Local is SET LOCAL: the value lasts to the end of the transaction.
	Local bool
}

// ParseSessionCommand recognizes SET/RESET of pgequiv settings. ok is
// false for every other statement, which the proxy forwards.
func ParseSessionCommand(sql string) (cmd SessionCommand, ok bool) {
	trimmed := strings.TrimSpace(strings.ToLower(sql))
	if !strings.HasPrefix(trimmed, "set") && !strings.HasPrefix(trimmed, "reset") {
		return cmd, false
	}
	tree, err := pg.Parse(sql)
	if err != nil || len(tree.Stmts) != 1 {
		return cmd, false
	}
	vs := tree.Stmts[0].Stmt.GetVariableSetStmt()
	if vs == nil {
		return cmd, false
	}
	switch vs.Kind {
	case pg.VariableSetKind_VAR_RESET_ALL:
		return SessionCommand{All: true, Reset: true, Tag: "RESET"}, true
	case pg.VariableSetKind_VAR_RESET, pg.VariableSetKind_VAR_SET_DEFAULT:
		if name := strings.ToLower(vs.Name); name == SettingReference || name == SettingReferenceID {
			tag := "SET"
			if vs.Kind == pg.VariableSetKind_VAR_RESET {
				tag = "RESET"
			}
			return SessionCommand{Name: name, Reset: true, Tag: tag, Local: vs.IsLocal}, true
		}
	case pg.VariableSetKind_VAR_SET_VALUE:
		name := strings.ToLower(vs.Name)
		if name != SettingReference && name != SettingReferenceID {
			return cmd, false
		}
		if len(vs.Args) != 1 {
			return cmd, false
		}
		c := vs.Args[0].GetAConst()
		if c == nil {
			return cmd, false
		}
		var v string
		switch x := c.Val.(type) {
		case *pg.A_Const_Sval:
			v = x.Sval.Sval
		default:
			return cmd, false
		}
		return SessionCommand{Name: name, Value: v, Tag: "SET", Local: vs.IsLocal}, true
	}
	return cmd, false
}

// ParseShow recognizes SHOW of a pgequiv setting and returns the
// setting's name (lower case). The proxy answers it: in relay mode the
// server never saw a SET the proxy consumed, and in database-free mode
// there is no server.
func ParseShow(sql string) (name string, ok bool) {
	trimmed := strings.TrimSpace(strings.ToLower(sql))
	if !strings.HasPrefix(trimmed, "show") || !strings.Contains(trimmed, "pgequiv") {
		return "", false
	}
	tree, err := pg.Parse(sql)
	if err != nil || len(tree.Stmts) != 1 {
		return "", false
	}
	vs := tree.Stmts[0].Stmt.GetVariableShowStmt()
	if vs == nil {
		return "", false
	}
	name = strings.ToLower(vs.Name)
	if name != SettingReference && name != SettingReferenceID {
		return "", false
	}
	return name, true
}

// Value is the current value of setting name ("" when unset, as
// PostgreSQL shows a reset placeholder setting).
func (s *Session) Value(name string) string {
	switch name {
	case SettingReference:
		return s.Reference
	case SettingReferenceID:
		return s.ReferenceID
	}
	return ""
}
