package judging

import (
	"fmt"
	"slices"
	"strings"

	pgq "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// A schema from DDL files has no pg_proc: the proxy cannot read which
// functions are VOLATILE (volatile.go), and a tagged query calling a
// plpgsql function that INSERTs was "cannot judge" (the planner knows no
// such function), which enforce_unknown: false forwarded (issue 34, item
// 3). With files, the proxy knows PostgreSQL's own read-only functions
// and operators (builtins.go) and what the files declare; any other
// call is a side effect, refused whatever enforce_unknown says. The
// files are the user's declaration: a function they declare STABLE is
// judged as STABLE, whatever it does on the server.

// FileFunctions are what a schema's DDL files declare of functions,
// aggregates and operators, with the views of its schema that reach a
// call the proxy cannot vouch for.
type FileFunctions struct {
	// byName: a bare name declared, and whether every declaration of it
	// (any schema, any overload) is IMMUTABLE or STABLE.
	byName map[string]bool
	// byQual: the same by schema.name; an unqualified declaration counts
	// for public (the first schema of the default search_path).
	byQual map[string]bool
	// opsByName and opsByQual: declared operators, and whether every one
	// of a symbol calls a function known to change nothing.
	opsByName, opsByQual map[string]bool
	// attrs are declared functions not all IMMUTABLE or STABLE that are
	// no column of any table: t.f then calls f(t) (attribute notation).
	attrs map[string]bool
	// rels are the relations the files define, as tag.NameTable spells
	// them: by name, and by schema.name (public.name for an unqualified
	// one); a relation not among them may be a view calling anything.
	rels map[string]bool
	// views names each view (as tag.NameRelation spells it) that reaches
	// such a call, with why.
	views map[string]string
	// schema is the schema the views were read from.
	schema *catalog.Schema
}

// fnDecl is one declared function overload or aggregate.
type fnDecl struct {
	key, name string // tag.CallKey spelling, and its bare name
	sig       string // the input argument types
	safe      bool   // IMMUTABLE or STABLE
	// deps, for an aggregate, are its support functions (CallKey
	// spelling): it is safe when they all are.
	deps []string
}

// ReadFileFunctions reads the declarations in ddl (the schema files'
// text) for schema, the schema loaded from the same text. A function
// declared with no volatility is VOLATILE, as in PostgreSQL; ALTER
// FUNCTION changes it; functions are matched by name, so a name with one
// VOLATILE overload counts as VOLATILE.
func ReadFileFunctions(ddl string, schema *catalog.Schema) (*FileFunctions, error) {
	tree, err := pgq.Parse(ddl)
	if err != nil {
		return nil, fmt.Errorf("schema files: functions: %w", err)
	}
	var fns []*fnDecl
	type opDecl struct{ key, sym, fn string }
	var ops []opDecl
	rels := map[string]bool{}
	for _, raw := range tree.Stmts {
		if rv := definedRelation(raw.Stmt); rv != nil {
			addRelation(rels, rv.Schemaname, rv.Relname)
		}
		switch st := raw.Stmt.Node.(type) {
		case *pgq.Node_CreateFunctionStmt:
			f := st.CreateFunctionStmt
			if f.IsProcedure {
				continue // CALL only, a side effect of its own
			}
			d := newDecl(f.Funcname)
			if d == nil {
				continue
			}
			d.sig = inputSig(f.Parameters)
			d.safe = safeVolatility(f.Options, false)
			fns = replaceDecl(fns, d)
		case *pgq.Node_AlterFunctionStmt:
			fns = alterDecl(fns, st.AlterFunctionStmt)
		case *pgq.Node_DefineStmt:
			dst := st.DefineStmt
			switch dst.Kind {
			case pgq.ObjectType_OBJECT_AGGREGATE:
				if d := newDecl(dst.Defnames); d != nil {
					d.sig = fmt.Sprint(len(dst.Args)) // overloads differ; any one VOLATILE counts
					d.deps = defFuncs(dst.Definition, "sfunc", "finalfunc", "combinefunc", "serialfunc",
						"deserialfunc", "msfunc", "minvfunc", "mfinalfunc")
					fns = append(fns, d)
				}
			case pgq.ObjectType_OBJECT_OPERATOR:
				if key, ok := tag.CallKey(dst.Defnames); ok {
					fn := defFuncs(dst.Definition, "function", "procedure")
					o := opDecl{key: key, sym: lastPart(dst.Defnames)}
					if len(fn) == 1 {
						o.fn = fn[0]
					}
					ops = append(ops, o)
				}
			}
		}
	}
	ff := &FileFunctions{byName: map[string]bool{}, byQual: map[string]bool{}, opsByName: map[string]bool{}, opsByQual: map[string]bool{}, rels: rels}
	for _, d := range fns {
		if len(d.deps) == 0 {
			setAll(ff.byName, d.name, d.safe)
			setAll(ff.byQual, qualKey(d.key), d.safe)
		}
	}
	// Aggregates after the functions they call (which may be declared
	// after them in the files).
	for _, d := range fns {
		if len(d.deps) > 0 {
			safe := true
			for _, dep := range d.deps {
				safe = safe && ff.callWhy(dep) == ""
			}
			setAll(ff.byName, d.name, safe)
			setAll(ff.byQual, qualKey(d.key), safe)
		}
	}
	for _, o := range ops {
		safe := o.fn != "" && ff.callWhy(o.fn) == ""
		setAll(ff.opsByName, o.sym, safe)
		setAll(ff.opsByQual, qualKey(o.key), safe)
	}
	ff.readSchema(schema)
	return ff, nil
}

// setAll records a declaration of k: k is safe while every declaration
// of it is.
func setAll(m map[string]bool, k string, safe bool) {
	if old, seen := m[k]; seen {
		safe = safe && old
	}
	m[k] = safe
}

// qualKey is how a qualified call names key's declaration: an
// unqualified one is created in public.
func qualKey(key string) string {
	if schema, _ := splitKey(key); schema == "" {
		return "public." + key
	}
	return key
}

// splitKey splits a tag.CallKey spelling into its schema ("" when
// unqualified) and name; a part holding a dot is quoted.
func splitKey(key string) (schema, name string) {
	i := 0
	if strings.HasPrefix(key, `"`) {
		// A quoted part ends at a quote not doubled.
		for i = 1; i < len(key); i++ {
			if key[i] == '"' {
				if i+1 < len(key) && key[i+1] == '"' {
					i++
					continue
				}
				i++
				break
			}
		}
		if i < len(key) && key[i] == '.' {
			return key[:i], key[i+1:]
		}
		return "", key
	}
	if j := strings.IndexByte(key, '.'); j >= 0 {
		return key[:j], key[j+1:]
	}
	return "", key
}

func newDecl(names []*pgq.Node) *fnDecl {
	key, ok := tag.CallKey(names)
	if !ok {
		return nil
	}
	_, name := splitKey(key)
	return &fnDecl{key: key, name: name}
}

func lastPart(names []*pgq.Node) string {
	if len(names) == 0 {
		return ""
	}
	return names[len(names)-1].GetString_().GetSval()
}

// inputSig spells a function's input argument types (OUT and TABLE
// columns are no part of its identity).
func inputSig(params []*pgq.Node) string {
	var types []string
	for _, p := range params {
		fp := p.GetFunctionParameter()
		if fp == nil || fp.Mode == pgq.FunctionParameterMode_FUNC_PARAM_OUT || fp.Mode == pgq.FunctionParameterMode_FUNC_PARAM_TABLE {
			continue
		}
		types = append(types, typeSig(fp.ArgType))
	}
	return strings.Join(types, ",")
}

// typeSig spells a type by its last name part (the parser gives int and
// integer as pg_catalog.int4) and array depth.
func typeSig(t *pgq.TypeName) string {
	if t == nil {
		return "?"
	}
	return lastPart(t.Names) + strings.Repeat("[]", len(t.ArrayBounds))
}

// safeVolatility reads a VOLATILITY option among opts: IMMUTABLE or
// STABLE is safe; none leaves was (VOLATILE for CREATE FUNCTION).
func safeVolatility(opts []*pgq.Node, was bool) bool {
	for _, o := range opts {
		if d := o.GetDefElem(); d != nil && d.Defname == "volatility" {
			v := d.Arg.GetString_().GetSval()
			was = v == "immutable" || v == "stable"
		}
	}
	return was
}

// replaceDecl adds d, replacing a declaration of the same function and
// input types (CREATE OR REPLACE).
func replaceDecl(fns []*fnDecl, d *fnDecl) []*fnDecl {
	for i, f := range fns {
		if f.key == d.key && f.sig == d.sig && len(f.deps) == 0 {
			fns[i] = d
			return fns
		}
	}
	return append(fns, d)
}

// alterDecl applies ALTER FUNCTION's volatility. When it names input
// types no declaration matches as spelled, a change to VOLATILE marks
// every overload of the name, and a change away from it is ignored.
func alterDecl(fns []*fnDecl, a *pgq.AlterFunctionStmt) []*fnDecl {
	if a.Func == nil || !hasVolatility(a.Actions) {
		return fns
	}
	key, ok := tag.CallKey(a.Func.Objname)
	if !ok {
		return fns
	}
	var sig []string
	for _, t := range a.Func.Objargs {
		sig = append(sig, typeSig(t.GetTypeName()))
	}
	matched := false
	for _, f := range fns {
		if f.key == key && len(f.deps) == 0 && (a.Func.ArgsUnspecified || f.sig == strings.Join(sig, ",")) {
			f.safe, matched = safeVolatility(a.Actions, f.safe), true
		}
	}
	if !matched && !safeVolatility(a.Actions, true) {
		for _, f := range fns {
			if f.key == key {
				f.safe = false
			}
		}
	}
	return fns
}

func hasVolatility(opts []*pgq.Node) bool {
	for _, o := range opts {
		if d := o.GetDefElem(); d != nil && d.Defname == "volatility" {
			return true
		}
	}
	return false
}

// defFuncs reads the functions CREATE AGGREGATE or CREATE OPERATOR
// names under keys, each as tag.CallKey spells it.
func defFuncs(defs []*pgq.Node, keys ...string) []string {
	var out []string
	for _, n := range defs {
		d := n.GetDefElem()
		if d == nil || !slices.Contains(keys, strings.ToLower(d.Defname)) || d.Arg == nil {
			continue
		}
		var names []*pgq.Node
		switch {
		case d.Arg.GetTypeName() != nil:
			names = d.Arg.GetTypeName().Names
		case d.Arg.GetList() != nil:
			names = d.Arg.GetList().Items
		case d.Arg.GetString_() != nil:
			names = []*pgq.Node{d.Arg}
		}
		key, ok := tag.CallKey(names)
		if !ok {
			key = "?" // unreadable: not known to change nothing
		}
		out = append(out, key)
	}
	return out
}

// undeclaredFunctions are the declarations of files that declare no
// function, for schema.
func undeclaredFunctions(schema *catalog.Schema) *FileFunctions {
	ff := &FileFunctions{byName: map[string]bool{}, byQual: map[string]bool{}, opsByName: map[string]bool{}, opsByQual: map[string]bool{}, rels: map[string]bool{}}
	if schema != nil {
		for _, t := range schema.Tables {
			addRelation(ff.rels, "", t.Name) // no DDL to say otherwise: public
		}
	}
	ff.readSchema(schema)
	return ff
}

// definedRelation is the relation a CREATE TABLE, VIEW, MATERIALIZED
// VIEW, TABLE AS or FOREIGN TABLE defines; nil for other statements.
func definedRelation(n *pgq.Node) *pgq.RangeVar {
	switch st := n.Node.(type) {
	case *pgq.Node_CreateStmt:
		return st.CreateStmt.Relation
	case *pgq.Node_ViewStmt:
		return st.ViewStmt.View
	case *pgq.Node_CreateTableAsStmt:
		return st.CreateTableAsStmt.GetInto().GetRel()
	case *pgq.Node_CreateForeignTableStmt:
		return st.CreateForeignTableStmt.GetBaseStmt().GetRelation()
	}
	return nil
}

// addRelation records a defined relation as tag.NameTable spells a
// reference that reaches it: its name, and its schema's (public for an
// unqualified one).
func addRelation(rels map[string]bool, schema, name string) {
	if schema == "" {
		schema = "public"
	}
	rels[chainName(name)] = true
	rels[chainName(schema)+"."+chainName(name)] = true
}

// chainName quotes a name part holding a dot, as tag's keys do.
func chainName(s string) string {
	if strings.Contains(s, ".") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}
