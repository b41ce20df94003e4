package tag

import (
	"encoding/json"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// SetConfig is a call set_config('pgequiv.…', value, is_local) in a
// statement: the server changes the setting as SET (or SET LOCAL) would,
// so the proxy must too.
type SetConfig struct {
	Cmd   SessionCommand
	Local bool
}

// ParseSetConfig finds the set_config calls of sql that change a pgequiv
// setting, in text order. Only calls whose arguments are constants are
// understood; dynamic reports a call on a pgequiv setting (or on a name
// that is not a constant) whose effect cannot be known from the text.
//
// plain reports that sql is one statement whose every call surely runs
// when the statement succeeds: `SELECT set_config(...)[, ...]` with
// nothing but set_config calls with constant arguments and constants in
// its target list, and no FROM, WHERE, CASE, subquery or any other
// clause. A call elsewhere (`... FROM t WHERE false`, an untaken CASE
// branch, beside a set-returning function that returns no row) may not
// run at all while the statement succeeds: the proxy cannot tell from
// the text whether the server changed the setting.
func ParseSetConfig(sql string) (calls []SetConfig, dynamic, plain bool) {
	if !strings.Contains(strings.ToLower(sql), "set_config") {
		return nil, false, false
	}
	js, err := pg.ParseToJSON(sql)
	if err != nil {
		return nil, false, false
	}
	var tree any
	if err := json.Unmarshal([]byte(js), &tree); err != nil {
		return nil, false, false
	}
	plain = plainSetConfig(tree)
	var walk func(n any)
	walk = func(n any) {
		switch x := n.(type) {
		case map[string]any:
			if fc, ok := x["FuncCall"].(map[string]any); ok {
				if c, ok, dyn := setConfigCall(fc); ok {
					calls = append(calls, c)
				} else if dyn {
					dynamic = true
				}
			}
			for _, k := range sortedKeys(x) {
				walk(x[k])
			}
		case []any:
			for _, v := range x {
				walk(v)
			}
		}
	}
	walk(tree)
	return calls, dynamic, plain && !dynamic
}

// plainSetConfig reports whether tree (pg_query's JSON) is one SELECT of
// set_config calls with constant arguments and constants only; see
// ParseSetConfig.
func plainSetConfig(tree any) bool {
	root, _ := tree.(map[string]any)
	stmts, _ := root["stmts"].([]any)
	if len(stmts) != 1 {
		return false
	}
	raw, _ := stmts[0].(map[string]any)
	stmt, _ := raw["stmt"].(map[string]any)
	sel, ok := stmt["SelectStmt"].(map[string]any)
	if !ok || len(stmt) != 1 {
		return false
	}
	for k, v := range sel {
		switch k {
		case "targetList":
		case "op":
			if v != "SETOP_NONE" {
				return false
			}
		case "limitOption":
			if v != "LIMIT_OPTION_DEFAULT" {
				return false
			}
		default:
			return false // FROM, WHERE, DISTINCT, INTO, WITH, ...
		}
	}
	targets, _ := sel["targetList"].([]any)
	if len(targets) == 0 {
		return false
	}
	for _, t := range targets {
		tm, _ := t.(map[string]any)
		rt, _ := tm["ResTarget"].(map[string]any)
		val, _ := rt["val"].(map[string]any)
		if fc, ok := val["FuncCall"].(map[string]any); ok {
			for k := range fc {
				if k != "funcname" && k != "args" && k != "funcformat" && k != "location" {
					return false // OVER, FILTER, VARIADIC, ORDER BY
				}
			}
			if _, ok, _ := setConfigCall(fc); !ok && !constantCall(fc) {
				return false
			}
			continue
		}
		if !constNode(val) {
			return false
		}
	}
	return true
}

// constNode reports whether n is a constant, possibly cast.
func constNode(n map[string]any) bool {
	if tc, ok := n["TypeCast"].(map[string]any); ok {
		arg, _ := tc["arg"].(map[string]any)
		return constNode(arg)
	}
	_, ok := n["A_Const"]
	return ok
}

// constantCall reports whether fc is set_config (of any setting) with
// constant arguments: it runs whenever its statement does.
func constantCall(fc map[string]any) bool {
	names, _ := fc["funcname"].([]any)
	if len(names) == 0 || stringNode(names[len(names)-1]) != "set_config" ||
		len(names) == 2 && stringNode(names[0]) != "pg_catalog" || len(names) > 2 {
		return false
	}
	args, _ := fc["args"].([]any)
	if len(args) != 3 {
		return false
	}
	for _, a := range args[:2] {
		if _, isConst, isNull := constArg(a); !isConst && !isNull {
			return false
		}
	}
	_, ok := boolArg(args[2])
	return ok
}

// sortedKeys lists a node's fields in the order pg_query writes them,
// which JSON objects lose: by location where known, so calls come in
// text order.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	loc := func(k string) float64 {
		if l, ok := firstLocation(m[k]); ok {
			return l
		}
		return 1e18
	}
	// Insertion sort: nodes have few fields.
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && (loc(keys[j]) < loc(keys[j-1]) || loc(keys[j]) == loc(keys[j-1]) && keys[j] < keys[j-1]); j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// firstLocation is the smallest "location" within n.
func firstLocation(n any) (float64, bool) {
	best, found := 0.0, false
	var walk func(n any)
	walk = func(n any) {
		switch x := n.(type) {
		case map[string]any:
			if l, ok := x["location"].(float64); ok && (!found || l < best) {
				best, found = l, true
			}
			for _, v := range x {
				walk(v)
			}
		case []any:
			for _, v := range x {
				walk(v)
			}
		}
	}
	walk(n)
	return best, found
}

// setConfigCall reads one FuncCall node.
func setConfigCall(fc map[string]any) (c SetConfig, ok, dynamic bool) {
	names, _ := fc["funcname"].([]any)
	if len(names) == 0 {
		return c, false, false
	}
	last := stringNode(names[len(names)-1])
	if last != "set_config" || len(names) == 2 && stringNode(names[0]) != "pg_catalog" || len(names) > 2 {
		return c, false, false
	}
	args, _ := fc["args"].([]any)
	if len(args) != 3 {
		return c, false, false
	}
	name, isConst, _ := constArg(args[0])
	if !isConst {
		return c, false, true // a computed name might be ours
	}
	name = strings.ToLower(name)
	if name != SettingReference && name != SettingReferenceID {
		return c, false, false
	}
	value, isConst, isNull := constArg(args[1])
	local, localConst := boolArg(args[2])
	if !isConst && !isNull || !localConst {
		return c, false, true
	}
	c.Cmd = SessionCommand{Name: name, Value: value, Reset: isNull, Tag: "SET"}
	c.Local = local
	return c, true, false
}

func stringNode(n any) string {
	m, _ := n.(map[string]any)
	s, _ := m["String"].(map[string]any)
	v, _ := s["sval"].(string)
	return v
}

// constArg reads a string constant argument, possibly cast ('x'::text).
func constArg(n any) (s string, isConst, isNull bool) {
	m, _ := n.(map[string]any)
	if tc, ok := m["TypeCast"].(map[string]any); ok {
		return constArg(tc["arg"])
	}
	a, ok := m["A_Const"].(map[string]any)
	if !ok {
		return "", false, false
	}
	if b, _ := a["isnull"].(bool); b {
		return "", false, true
	}
	if sv, ok := a["sval"].(map[string]any); ok {
		v, _ := sv["sval"].(string)
		return v, true, false
	}
	return "", false, false
}

// boolArg reads a boolean constant argument (true, false, 't', 'off', ...).
func boolArg(n any) (v, ok bool) {
	m, _ := n.(map[string]any)
	if tc, ok := m["TypeCast"].(map[string]any); ok {
		return boolArg(tc["arg"])
	}
	a, isConst := m["A_Const"].(map[string]any)
	if !isConst {
		return false, false
	}
	if b, ok := a["boolval"].(map[string]any); ok {
		bv, _ := b["boolval"].(bool)
		return bv, true
	}
	if s, ok := a["sval"].(map[string]any); ok {
		switch strings.ToLower(fmtString(s["sval"])) {
		case "t", "true", "on", "yes", "y", "1":
			return true, true
		case "f", "false", "off", "no", "n", "0":
			return false, true
		}
	}
	return false, false
}

func fmtString(v any) string {
	s, _ := v.(string)
	return s
}
