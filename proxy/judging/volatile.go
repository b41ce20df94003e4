package judging

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// A query that calls a VOLATILE function may write: a plpgsql or SQL
// function that INSERTs, lo_from_bytea, pg_terminate_backend,
// pg_advisory_xact_lock, query_to_xml (which runs any query it is given).
// The judge does not know such a function and answers "cannot judge",
// which enforce_unknown: false forwarded (issue 34, item 3). The proxy
// reads which functions are VOLATILE from pg_proc when it introspects a
// database, with the operators they implement and the views that call
// them (through other views too), and a judged query naming one is
// refused for its side effects whatever enforce_unknown says.

// readOnlyVolatile are pg_catalog's VOLATILE functions that change
// nothing: a query calling one is judged (the judge reads random() and
// the clock as volatile and proves nothing it should not).
var readOnlyVolatile = []string{"random", "random_normal", "gen_random_uuid", "clock_timestamp", "timeofday", "currval", "lastval"}

// volatileQuery lists, as calledNames spells them, the VOLATILE
// functions ("f:"), the operators implemented by one ("o:"), and the
// views whose definition calls one, directly or through views ("r:"), the
// domains whose CHECK calls one ("d:");
// and the names of built-in functions that a function outside
// pg_catalog also has ("s:", shadowCall).
const volatileQuery = `
WITH RECURSIVE vol AS (
  SELECT p.oid FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
  WHERE p.provolatile = 'v' AND NOT (n.nspname = 'pg_catalog' AND p.proname = ANY($1))
), volop AS (
  SELECT o.oid, o.oprname FROM pg_operator o WHERE o.oprcode IN (SELECT oid FROM vol)
), views(oid) AS (
  SELECT r.ev_class FROM pg_rewrite r JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = r.oid
  WHERE d.refclassid = 'pg_proc'::regclass AND d.refobjid IN (SELECT oid FROM vol)
     OR d.refclassid = 'pg_operator'::regclass AND d.refobjid IN (SELECT oid FROM volop)
  UNION
  SELECT r.ev_class FROM pg_rewrite r JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = r.oid
  JOIN views v ON d.refclassid = 'pg_class'::regclass AND d.refobjid = v.oid
)
SELECT 'f:' || p.proname FROM pg_proc p WHERE p.oid IN (SELECT oid FROM vol)
UNION SELECT 'o:' || oprname FROM volop
UNION SELECT 'r:' || c.relname FROM pg_class c WHERE c.oid IN (SELECT oid FROM views) AND c.relkind = 'v'
UNION SELECT 'd:' || t.typname FROM pg_type t JOIN pg_constraint c ON c.contypid = t.oid
  JOIN pg_depend d ON d.classid = 'pg_constraint'::regclass AND d.objid = c.oid
  WHERE t.typtype = 'd' AND d.refclassid = 'pg_proc'::regclass AND d.refobjid IN (SELECT oid FROM vol)
UNION SELECT 's:' || p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
  WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
    AND EXISTS (SELECT FROM pg_proc b WHERE b.pronamespace = 'pg_catalog'::regnamespace AND b.proname = p.proname)`

// readVolatile reads the names volatileQuery lists.
func readVolatile(ctx context.Context, conn *pgx.Conn) (map[string]bool, error) {
	rows, err := conn.Query(ctx, volatileQuery, readOnlyVolatile)
	if err != nil {
		return nil, fmt.Errorf("volatile functions: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	var name string
	for rows.Next() {
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("volatile functions: %w", err)
		}
		out[strings.ToLower(name)] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("volatile functions: %w", err)
	}
	return out, nil
}

// shadowCall names a call of job's query to a built-in whose name a
// function outside pg_catalog also has: PostgreSQL picks among every
// function of that name on the search_path by argument types, so a
// public.upper(varchar) (or an extension's overload, citext's replace)
// may run where the judge models pg_catalog's. "" if none, for a schema
// from files, or before the schema is read.
func (j *Judging) shadowCall(job *judgeJob) string {
	if len(job.names) == 0 {
		return ""
	}
	vol := j.schemas.volatile(&job.set.Schemas, job.sess.Database)
	if len(vol) == 0 {
		return ""
	}
	for _, n := range job.names {
		name, ok := strings.CutPrefix(n, tag.NameCall)
		if ok && !strings.Contains(name, ".") && vol["s:"+name] {
			return "it calls " + name + ", which a function outside pg_catalog is also named: PostgreSQL may run that one instead of the built-in the judge models"
		}
	}
	return ""
}

// volatileCall names the side effect of job's query if it names a
// VOLATILE function, an operator implemented by one or a view that calls
// one in its database; "" if it names none, or if that is not known yet
// (judgeWithin asks again once the schema load that reads it is done).
// A schema from files has no pg_proc: filefuncs.go.
func (j *Judging) volatileCall(job *judgeJob) string {
	if len(job.names) == 0 {
		return ""
	}
	if ff := j.schemas.fileFunctions(&job.set.Schemas, job.sess.Database); ff != nil {
		return ff.namesWhy(job.names)
	}
	vol := j.schemas.volatile(&job.set.Schemas, job.sess.Database)
	for _, n := range job.names {
		if call, ok := strings.CutPrefix(n, tag.NameCall); ok {
			// A genuine call, as the lexer reads unread statements too
			// (size.go): VOLATILE names are by name, any schema.
			if i := strings.LastIndexByte(call, '.'); i >= 0 {
				call = call[i+1:]
			}
			if vol[tag.NameFunc+strings.ToLower(call)] {
				return "a call of VOLATILE function " + call
			}
			continue
		}
		if !vol[n] {
			continue
		}
		name := n[len(tag.NameFunc):]
		switch n[:len(tag.NameFunc)] {
		case tag.NameOperator:
			return "operator " + name + " (its function is VOLATILE)"
		case tag.NameRelation:
			return "view " + name + " (it calls a VOLATILE function)"
		case tag.NameType:
			return "a cast to domain " + name + " (its CHECK calls a VOLATILE function)"
		}
		return "a call of VOLATILE function " + name
	}
	return ""
}

// fileFunctions returns what db's schema files declare of functions
// (filefuncs.go); nil for an introspected schema.
func (c *schemaCache) fileFunctions(set *SchemaSettings, db string) *FileFunctions {
	s, ff := set.ByDatabase[db], set.Functions[db]
	if s == nil {
		s, ff = set.Default, set.DefaultFunctions
	}
	if s == nil {
		return nil
	}
	if ff != nil && ff.schema == s {
		return ff
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ff = c.undeclared[s]; ff == nil {
		// Read once per schema; a reload brings new schemas, which the
		// old ones' entries should not outlive in number.
		if len(c.undeclared) > 64 {
			clear(c.undeclared)
		}
		if c.undeclared == nil {
			c.undeclared = map[*catalog.Schema]*FileFunctions{}
		}
		ff = undeclaredFunctions(s)
		c.undeclared[s] = ff
	}
	return ff
}
