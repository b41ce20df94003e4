package judging

// The built-ins a schema from files may call (filefuncs.go): with no
// pg_proc to read, the proxy knows PostgreSQL's own functions and
// operators from a list read once from PostgreSQL 15's pg_catalog into
// builtins_pg15.go. TestBuiltinsMatchPgProc checks the list against the
// test cluster's pg_proc and, with -update-builtins, writes it (with
// internal/sqltext/pggen, the generator of the planner's pgnames_pg15.go
// too, which reads other columns: every name by kind, and arities):
//
//go:generate go test -run TestBuiltinsMatchPgProc -update-builtins .

// builtinFuncsQuery lists pg_catalog's function names none of whose
// overloads is VOLATILE, with the VOLATILE ones that change nothing
// (readOnlyVolatile, $1). A name with a VOLATILE overload is left out:
// functions are matched by name, any overload.
const builtinFuncsQuery = `
SELECT p.proname FROM pg_proc p
WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.prokind <> 'p'
GROUP BY p.proname
HAVING bool_and(p.provolatile <> 'v') OR p.proname = ANY($1)
ORDER BY 1`

// builtinOpsQuery lists pg_catalog's operator symbols none of whose
// functions is VOLATILE.
const builtinOpsQuery = `
SELECT o.oprname FROM pg_operator o JOIN pg_proc p ON p.oid = o.oprcode
WHERE o.oprnamespace = 'pg_catalog'::regnamespace
GROUP BY o.oprname
HAVING bool_and(p.provolatile <> 'v')
ORDER BY 1`

// builtinRelsQuery lists the system relations, as tag.NameTable spells
// them: pg_catalog's by name (the schema is on every search_path),
// information_schema's qualified. Reading one runs no user code.
const builtinRelsQuery = `
SELECT CASE WHEN n.nspname = 'pg_catalog' THEN c.relname ELSE n.nspname || '.' || c.relname END
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname IN ('pg_catalog', 'information_schema') AND c.relkind IN ('r', 'v', 'm', 'f', 'p')
ORDER BY 1`

// builtinFuncs, builtinOps and builtinRels index the generated lists.
var builtinFuncs, builtinOps, builtinRels = setOf(builtinFuncList), setOf(builtinOpList), setOf(builtinRelList)

func setOf(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
