package judging

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pgequiv/pgequiv/internal/sqltext"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// What files mode refuses, and why (filefuncs.go).
const (
	whyUnknownFunc = "not a built-in, and the schema files do not declare it IMMUTABLE or STABLE; with no pg_proc its volatility is unknown"
	whyVolatile    = "the schema files declare it VOLATILE"
	whyUnknownOp   = "not a built-in operator, and the schema files do not declare it with an IMMUTABLE or STABLE function; with no pg_proc its volatility is unknown"
	whyVolatileOp  = "the schema files declare it with a function not known to be IMMUTABLE or STABLE"
	whyUnknownRel  = "the schema files do not define it, and it may be a view that calls a function that writes"
)

// callWhy says why a call of key (tag.CallKey spelling) may change
// something; "" if it changes nothing.
func (ff *FileFunctions) callWhy(key string) string {
	schema, name := splitKey(key)
	if schema != "" {
		// Another schema's f is not pg_catalog's f.
		safe, declared := ff.byQual[key]
		switch {
		case !declared:
			return whyUnknownFunc
		case !safe:
			return whyVolatile
		}
		return ""
	}
	// Unqualified: any declaration of the name may be the one the
	// server's search_path picks, before or after pg_catalog's.
	safe, declared := ff.byName[name]
	switch {
	case declared && !safe:
		return whyVolatile
	case declared || builtinFuncs[name]:
		return ""
	}
	return whyUnknownFunc
}

// opWhy is callWhy for an operator (tag.NameOpCall spelling).
func (ff *FileFunctions) opWhy(key string) string {
	if i := strings.IndexByte(key, '.'); i >= 0 { // no symbol holds a dot
		safe, declared := ff.opsByQual[key]
		switch {
		case !declared:
			return whyUnknownOp
		case !safe:
			return whyVolatileOp
		}
		return ""
	}
	safe, declared := ff.opsByName[key]
	switch {
	case declared && !safe:
		return whyVolatileOp
	case declared || builtinOps[key]:
		return ""
	}
	return whyUnknownOp
}

// readSchema finds, in schema, the columns (t.f is then a column, not a
// call of f) and the views that reach a call not known to change
// nothing, through other views too.
func (ff *FileFunctions) readSchema(schema *catalog.Schema) {
	ff.schema, ff.attrs, ff.views = schema, map[string]bool{}, map[string]string{}
	columns := map[string]bool{}
	viewNames := map[string][]string{}
	if schema != nil {
		for _, t := range schema.Tables {
			// By name only: the files' CREATE TABLE says its schema
			// (ReadFileFunctions); the catalog keeps no schema.
			ff.rels[chainName(t.Name)] = true
			for _, c := range t.Columns {
				columns[c.Name] = true
			}
			if !t.IsView() {
				continue
			}
			key := tag.NameRelation + relName(t.Name)
			names, err := tag.CalledNames(t.ViewSQL)
			if err != nil {
				ff.views[key] = "its definition could not be read"
				continue
			}
			viewNames[key] = names
		}
	}
	for name, safe := range ff.byName {
		if !safe && !columns[name] {
			ff.attrs[tag.NameAttr+name] = true
		}
	}
	// Views calling what may write, then views reading those, until
	// nothing changes (a view cannot read itself).
	keys := make([]string, 0, len(viewNames))
	for k := range viewNames {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the same reason named on every load
	for changed := true; changed; {
		changed = false
		for _, k := range keys {
			if ff.views[k] != "" {
				continue
			}
			if why := ff.namesWhy(viewNames[k]); why != "" {
				ff.views[k] = "it reaches " + why
				changed = true
			}
		}
	}
}

// relName is a relation's name as tag.NameRelation spells it.
func relName(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	return strings.ToLower(name)
}

// namesWhy names the first of names (tag.Statement.Names) that may
// change something, with why; "" if none may.
func (ff *FileFunctions) namesWhy(names []string) string {
	for _, n := range names {
		kind, name := n[:len(tag.NameCall)], n[len(tag.NameCall):]
		switch kind {
		case tag.NameCall:
			if why := ff.callWhy(name); why != "" {
				return "a call of " + name + " (" + why + ")"
			}
		case tag.NameOpCall:
			if why := ff.opWhy(name); why != "" {
				return "operator " + name + " (" + why + ")"
			}
		case tag.NameAttr:
			if ff.attrs[n] {
				return "a call of " + name + " by attribute notation (" + whyVolatile + ", and no table has a column " + name + ")"
			}
		case tag.NameRelation:
			if why := ff.views[n]; why != "" {
				return "view " + name + " (" + why + ")"
			}
		case tag.NameTable:
			if !ff.rels[name] && !builtinRels[name] {
				return "relation " + name + " (" + whyUnknownRel + ")"
			}
		}
	}
	return ""
}

// CallsWhy names what a query in sql calls that may change something,
// as a judged query is refused for it; "" if nothing. It reads calls,
// operators and views only (the statement's own writes are Classify's).
func (ff *FileFunctions) CallsWhy(sql string) (string, error) {
	names, err := tag.CalledNames(sql)
	if err != nil {
		return "", fmt.Errorf("judging: %w", err)
	}
	return ff.namesWhy(names), nil
}

// unreadCalls are the calls a statement answered unread makes, read by
// the proxy's lexer (tag.UnreadCalls), for volatileCall to check against
// the schema files' declarations or the introspected VOLATILE names.
// Where the session's standard_conforming_strings is uncertain, both
// readings count.
func (j *Judging) unreadCalls(ev *proxy.QueryEvent, set *JudgeSettings) []string {
	strs := sqltext.StandardStrings
	if ev.BackslashStrings {
		strs = sqltext.BackslashStrings
	}
	names := tag.UnreadCalls(string(ev.SQL), strs)
	if ev.StringsUncertain {
		names = append(names, tag.UnreadCalls(string(ev.SQL), 1-strs)...)
	}
	return names
}
