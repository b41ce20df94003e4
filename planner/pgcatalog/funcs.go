package pgcatalog

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// The registry of catalog-only functions. Each is planned (through
// build.Extension) and evaluated (through exec.Options.Funcs) only for
// queries this package runs over the system tables; the judge never sees
// them, so a user query calling format_type still does not plan.
//
//	object lookups     format_type, pg_get_userbyid, pg_get_expr,
//	                   pg_get_constraintdef, pg_get_indexdef,
//	                   pg_encoding_to_char, obj_description,
//	                   col_description, shobj_description,
//	                   pg_get_function_result, pg_get_function_arguments,
//	                   pg_get_serial_sequence
//	visibility, ACLs   pg_table_is_visible, pg_type_is_visible,
//	                   pg_function_is_visible, has_schema_privilege,
//	                   has_table_privilege, has_database_privilege
//	session            version, current_database, current_schema,
//	                   current_schemas, current_user, session_user, user,
//	                   current_role, current_catalog, pg_backend_pid,
//	                   pg_is_in_recovery
//	text               quote_ident, array_to_string (of an array's text form)
//	regex (~ !~ ~* !~*) textregexeq, textregexne, texticregexeq, texticregexne
//	casts              regclass_in/out (x::regclass), regtype_out,
//	                   regnamespace_out, regproc_out
//
// A function that cannot answer (json_build_object, whose only callers
// read the empty pg_sequence) returns an error rather than a guess.
type function struct {
	typ catalog.Type
	fn  func(d *Data, args []exec.Value) (exec.Value, error)
}

var registry = map[string]function{
	"format_type":               {catalog.Text, (*Data).formatType},
	"pg_get_userbyid":           {catalog.Text, (*Data).userByID},
	"pg_get_expr":               {catalog.Text, func(_ *Data, a []exec.Value) (exec.Value, error) { return arg(a, 0), nil }},
	"pg_get_constraintdef":      {catalog.Text, (*Data).constraintDef},
	"pg_get_indexdef":           {catalog.Text, (*Data).indexDef},
	"pg_encoding_to_char":       {catalog.Text, encodingToChar},
	"obj_description":           {catalog.Text, nullFunc},
	"col_description":           {catalog.Text, nullFunc},
	"shobj_description":         {catalog.Text, nullFunc},
	"pg_get_function_result":    {catalog.Text, nullFunc},
	"pg_get_function_arguments": {catalog.Text, nullFunc},
	"pg_get_serial_sequence":    {catalog.Text, nullFunc},
	"pg_table_is_visible":       {catalog.Bool, (*Data).tableIsVisible},
	"pg_type_is_visible":        {catalog.Bool, trueFunc},
	"pg_function_is_visible":    {catalog.Bool, trueFunc},
	"has_schema_privilege":      {catalog.Bool, trueFunc},
	"has_table_privilege":       {catalog.Bool, trueFunc},
	"has_database_privilege":    {catalog.Bool, trueFunc},
	"version":                   {catalog.Text, func(*Data, []exec.Value) (exec.Value, error) { return s(Version), nil }},
	"current_database":          {catalog.Text, func(d *Data, _ []exec.Value) (exec.Value, error) { return s(d.dbase), nil }},
	"current_catalog":           {catalog.Text, func(d *Data, _ []exec.Value) (exec.Value, error) { return s(d.dbase), nil }},
	"current_schema":            {catalog.Text, func(*Data, []exec.Value) (exec.Value, error) { return s("public"), nil }},
	"current_schemas":           {catalog.Text, currentSchemas},
	"current_user":              {catalog.Text, (*Data).userName},
	"session_user":              {catalog.Text, (*Data).userName},
	"user":                      {catalog.Text, (*Data).userName},
	"current_role":              {catalog.Text, (*Data).userName},
	"pg_backend_pid":            {catalog.Int, func(*Data, []exec.Value) (exec.Value, error) { return i(1), nil }},
	"pg_is_in_recovery":         {catalog.Bool, func(*Data, []exec.Value) (exec.Value, error) { return bl(false), nil }},
	"quote_ident":               {catalog.Text, quoteIdent},
	"array_to_string":           {catalog.Text, arrayToString},
	"textregexeq":               {catalog.Bool, regexFunc(false, false)},
	"textregexne":               {catalog.Bool, regexFunc(false, true)},
	"texticregexeq":             {catalog.Bool, regexFunc(true, false)},
	"texticregexne":             {catalog.Bool, regexFunc(true, true)},
	"regclass_in":               {catalog.Int, (*Data).regclassIn},
	"regclass_out":              {catalog.Text, (*Data).regclassOut},
	"regtype_out":               {catalog.Text, regtypeOut},
	"regnamespace_out":          {catalog.Text, regnamespaceOut},
	"regproc_out":               {catalog.Text, func(_ *Data, a []exec.Value) (exec.Value, error) { return s("-"), nil }},
	"json_build_object":         {catalog.JSON, cannotFunc},
}

func init() {
	for name, f := range arrayFuncs {
		registry[name] = f
	}
	for name, f := range moreFuncs {
		registry[name] = f
	}
}

// moreFuncs answer for objects the schema never has (policies,
// statistics objects, triggers, publications).
var moreFuncs = map[string]function{
	"pg_relation_is_publishable":         {catalog.Bool, func(d *Data, a []exec.Value) (exec.Value, error) { return d.isTable(a), nil }},
	"pg_get_statisticsobjdef_columns":    {catalog.Text, nullFunc},
	"pg_get_triggerdef":                  {catalog.Text, nullFunc},
	"pg_get_viewdef":                     {catalog.Text, nullFunc},
	"pg_get_partkeydef":                  {catalog.Text, nullFunc},
	"pg_get_function_identity_arguments": {catalog.Text, nullFunc},
	"pg_get_function_sqlbody":            {catalog.Text, nullFunc},
	"pg_get_functiondef":                 {catalog.Text, nullFunc},
	"pg_get_ruledef":                     {catalog.Text, nullFunc},
}

// isTable says whether argument 0 is the OID of a table (not an index or
// view).
func (d *Data) isTable(a []exec.Value) exec.Value {
	oid, ok := oidArg(a, 0)
	if !ok {
		return null
	}
	r, ok := d.relByOID[oid]
	return bl(ok && r.index == nil && !r.table.IsView())
}

// Version is what version() answers.
var Version = "PostgreSQL 16.0 (pgequiv database-free) on x86_64-pc-linux-gnu, compiled by Go"

// regexOps are the operators planned as registry functions.
var regexOps = map[string]string{"~": "textregexeq", "!~": "textregexne", "~*": "texticregexeq", "!~*": "texticregexne"}

// casts are the casts to types the planner does not know.
var casts = map[string]func(arg *plan.Expr) *plan.Expr{
	"regclass": func(a *plan.Expr) *plan.Expr {
		if a.Typ == catalog.Int {
			return call("regclass_out", catalog.Text, a)
		}
		return call("regclass_in", catalog.Int, a)
	},
	"regtype":      outCast("regtype_out"),
	"regnamespace": outCast("regnamespace_out"),
	"regproc":      outCast("regproc_out"),
	"regrole":      outCast("pg_get_userbyid"),
	"oid": func(a *plan.Expr) *plan.Expr {
		if a.Typ == catalog.Int {
			return a
		}
		return &plan.Expr{Kind: plan.Cast, Typ: catalog.Int, Args: []*plan.Expr{a}, Pos: -1}
	},
}

func call(name string, t catalog.Type, args ...*plan.Expr) *plan.Expr {
	return &plan.Expr{Kind: plan.Func, Name: name, Typ: t, Args: args, Pos: -1}
}

// outCast casts an OID to its name; other operands are not modelled.
func outCast(fn string) func(*plan.Expr) *plan.Expr {
	return func(a *plan.Expr) *plan.Expr {
		if a.Typ != catalog.Int {
			return nil
		}
		return call(fn, catalog.Text, a)
	}
}

func arg(a []exec.Value, k int) exec.Value {
	if k < len(a) {
		return a[k]
	}
	return null
}

// oidArg reads argument k as an OID; ok is false for NULL or a non-number.
func oidArg(a []exec.Value, k int) (uint32, bool) {
	v := arg(a, k)
	switch v.K {
	case exec.KInt:
		return uint32(v.I), true
	case exec.KText:
		n, err := strconv.ParseUint(strings.TrimSpace(v.S), 10, 32)
		return uint32(n), err == nil
	}
	return 0, false
}

func nullFunc(*Data, []exec.Value) (exec.Value, error) { return null, nil }
func trueFunc(*Data, []exec.Value) (exec.Value, error) { return bl(true), nil }
func cannotFunc(*Data, []exec.Value) (exec.Value, error) {
	return null, fmt.Errorf("pgcatalog: %w: function not modelled", exec.ErrCannotExecute)
}

func (d *Data) userName([]exec.Value) (exec.Value, error) { return s(d.user), nil }

func (d *Data) formatType(a []exec.Value) (exec.Value, error) {
	oid, ok := oidArg(a, 0)
	if !ok {
		return null, nil
	}
	mod := arg(a, 1)
	if r, isRow := d.rowTypeName(oid); isRow {
		return s(r), nil
	}
	return s(formatType(oid, mod.I, mod.K == exec.KInt)), nil
}

func (d *Data) rowTypeName(oid uint32) (string, bool) {
	for _, r := range d.rels {
		if r.rowType == oid && r.index == nil {
			return r.table.Name, true
		}
	}
	return "", false
}

func (d *Data) userByID(a []exec.Value) (exec.Value, error) {
	oid, ok := oidArg(a, 0)
	if !ok {
		return null, nil
	}
	if oid == roleBoot {
		return s(d.user), nil
	}
	return s(fmt.Sprintf("unknown (OID=%d)", oid)), nil
}

func encodingToChar(_ *Data, a []exec.Value) (exec.Value, error) {
	if v := arg(a, 0); v.K == exec.KInt && v.I == encodingUTF8 {
		return s("UTF8"), nil
	}
	return s(""), nil
}

func (d *Data) tableIsVisible(a []exec.Value) (exec.Value, error) {
	oid, ok := oidArg(a, 0)
	if !ok {
		return null, nil
	}
	_, user := d.relByOID[oid]
	return bl(user), nil
}

func currentSchemas(_ *Data, a []exec.Value) (exec.Value, error) {
	if v := arg(a, 0); v.K == exec.KBool && v.B {
		return s("{pg_catalog,public}"), nil
	}
	return s("{public}"), nil
}

// quoteIdent quotes a name unless it is a plain lower-case identifier.
func quoteIdent(_ *Data, a []exec.Value) (exec.Value, error) {
	v := arg(a, 0)
	if v.K != exec.KText {
		return v, nil
	}
	return s(quoteName(v.S)), nil
}

var plainIdent = regexp.MustCompile(`^[a-z_][a-z0-9_$]*$`)

func quoteName(n string) string {
	if plainIdent.MatchString(n) {
		return n
	}
	return `"` + strings.ReplaceAll(n, `"`, `""`) + `"`
}

// arrayToString joins the elements of an array's text form ({a,b}); a
// quoted element is not modelled.
func arrayToString(_ *Data, a []exec.Value) (exec.Value, error) {
	v, sep := arg(a, 0), arg(a, 1)
	if v.K != exec.KText || sep.K != exec.KText {
		return null, nil
	}
	body := strings.TrimSuffix(strings.TrimPrefix(v.S, "{"), "}")
	if strings.ContainsAny(body, `"\`) {
		return null, fmt.Errorf("pgcatalog: %w: array_to_string of quoted elements", exec.ErrCannotExecute)
	}
	if body == "" {
		return s(""), nil
	}
	return s(strings.Join(strings.Split(body, ","), sep.S)), nil
}

// regexFunc is ~ and its variants. Go's RE2 reads the patterns clients
// send (^(name)$, ^pg_toast); a pattern it cannot compile is an error.
func regexFunc(fold, negate bool) func(*Data, []exec.Value) (exec.Value, error) {
	return func(_ *Data, a []exec.Value) (exec.Value, error) {
		v, p := arg(a, 0), arg(a, 1)
		if v.K != exec.KText || p.K != exec.KText {
			return null, nil
		}
		pat := p.S
		if fold {
			pat = "(?i)" + pat
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			return null, fmt.Errorf("pgcatalog: invalid regular expression %q: %w", p.S, err)
		}
		return bl(re.MatchString(v.S) != negate), nil
	}
}

// regclassIn is 'name'::regclass: the OID of a user relation or of a
// system table; an unknown name is 42P01 in PostgreSQL, here an error.
func (d *Data) regclassIn(a []exec.Value) (exec.Value, error) {
	v := arg(a, 0)
	if v.K == exec.KNull {
		return null, nil
	}
	if v.K == exec.KInt {
		return v, nil
	}
	name := strings.TrimPrefix(v.S, "public.")
	if n, err := strconv.ParseUint(name, 10, 32); err == nil {
		return o(uint32(n)), nil
	}
	if strings.HasPrefix(name, `"`) && strings.HasSuffix(name, `"`) && len(name) > 1 {
		name = strings.ReplaceAll(name[1:len(name)-1], `""`, `"`)
	} else {
		name = strings.ToLower(name)
	}
	for _, r := range d.rels {
		if r.index == nil && r.table.Name == name || r.index != nil && r.index.name == name {
			return o(r.oid), nil
		}
	}
	return null, fmt.Errorf("%w: relation %q does not exist", exec.ErrQuery, v.S)
}

// regclassOut is oid::regclass printed: the relation's name, or the
// number for an OID that names none.
func (d *Data) regclassOut(a []exec.Value) (exec.Value, error) {
	oid, ok := oidArg(a, 0)
	if !ok {
		return null, nil
	}
	if r, ok := d.relByOID[oid]; ok {
		if r.index != nil {
			return s(quoteName(r.index.name)), nil
		}
		return s(quoteName(r.table.Name)), nil
	}
	return s(strconv.FormatUint(uint64(oid), 10)), nil
}

func regtypeOut(d *Data, a []exec.Value) (exec.Value, error) {
	oid, ok := oidArg(a, 0)
	if !ok {
		return null, nil
	}
	if oid == 0 {
		return s("-"), nil
	}
	if r, isRow := d.rowTypeName(oid); isRow {
		return s(r), nil
	}
	return s(formatType(oid, -1, false)), nil
}

func regnamespaceOut(_ *Data, a []exec.Value) (exec.Value, error) {
	oid, ok := oidArg(a, 0)
	if !ok {
		return null, nil
	}
	switch oid {
	case nsPgCatalog:
		return s("pg_catalog"), nil
	case nsPublic:
		return s("public"), nil
	case nsInfoSchema:
		return s("information_schema"), nil
	}
	return s(strconv.FormatUint(uint64(oid), 10)), nil
}
