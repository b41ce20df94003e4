package campaign

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// Checks of issue 33 beside the replay of counterexamples: a
// not_equivalent must carry its evidence, a candidate called invalid must
// be one the engine refuses, and a schema the engine refuses must not
// load.

// checkNoEvidence checks a not_equivalent that carries no counterexample
// (docs/soundness.md, the evidence rule): the only structural reason
// that holds on every database is a different number of output columns.
// The engine describes both queries' columns on the empty database;
// where it runs both and counts the same columns the label has no
// evidence, whatever most databases would show.
func checkNoEvidence(ctx context.Context, tg *target, p Pair, base Finding) []Finding {
	e := tg.eng
	if err := e.begin(ctx, ""); err != nil {
		return nil
	}
	rr, cr := runBoth(ctx, e, p)
	_ = e.rollback(ctx)
	if rr.err != nil || cr.err != nil || rr.ncols != cr.ncols {
		return nil
	}
	f := base
	f.Kind, f.Class, f.Source = "not_equivalent without evidence", p.Class, "empty database"
	f.Why = fmt.Sprintf("no counterexample, and the engine describes %d output columns for both queries", rr.ncols)
	f.RefResult, f.CandResult = rr.String(), cr.String()
	return []Finding{f}
}

// checkInvalid checks an unknown the judge reports as an invalid
// candidate (the engine would refuse it; `eval` counts it wrong): the
// engine must refuse it on the empty database too.
func checkInvalid(ctx context.Context, tg *target, p Pair, v equivalence.Verdict, base Finding) []Finding {
	reason, ok := v.Invalid()
	if !ok {
		return nil
	}
	e := tg.eng
	if err := e.begin(ctx, ""); err != nil {
		return nil
	}
	cr := e.query(ctx, p.Candidate, p.Volatile, false)
	_ = e.rollback(ctx)
	if cr.err != nil {
		return nil
	}
	f := base
	f.Kind, f.Class, f.Source = "wrong invalid", p.Class, "empty database"
	f.Why = "the judge calls the candidate invalid (" + firstLine(reason) + "); the engine runs it"
	f.CandResult = cr.String()
	return []Finding{f}
}

// variantSchema is the PostgreSQL scratch schema a schema variant is
// created in, inside a transaction rolled back after.
const variantSchema = "campaign_variant"

// checkSchemaVariant writes a variant of the target's schema (plain
// CREATE TABLEs of its tables with keys and foreign keys inline) that the
// engine may refuse: tables in an order where a foreign key names a
// table declared later, or a foreign key to columns no key covers. It is
// created on the engine; a variant the engine refuses must not load
// through catalog.LoadDDL (issue 33 item 14). PostgreSQL only: SQLite
// checks a foreign key when a row is written, not when it is declared.
func checkSchemaVariant(ctx context.Context, tg *target, r *rand.Rand, base Finding) []Finding {
	if tg.eng.dialect() != catalog.Postgres || tg.loader != "catalog.LoadDDL" {
		return nil
	}
	var ts []*mtable
	for _, t := range tg.meta.insertOrder() {
		if !t.partitioned && t.parent == "" {
			ts = append(ts, t)
		}
	}
	if len(ts) < 2 {
		return nil
	}
	mutation := []string{"parents-first", "children-first", "fk-to-non-key"}[r.IntN(3)]
	if mutation == "children-first" {
		for i, j := 0, len(ts)-1; i < j; i, j = i+1, j-1 {
			ts[i], ts[j] = ts[j], ts[i]
		}
	}
	names := map[string]bool{}
	for _, t := range ts {
		names[t.name] = true
	}
	var engineDDL, judgeDDL []string
	for _, t := range ts {
		eng, jud := variantTable(t, names, mutation == "fk-to-non-key", tg.meta)
		engineDDL, judgeDDL = append(engineDDL, eng), append(judgeDDL, jud)
	}
	e := tg.eng
	if err := e.begin(ctx, ""); err != nil {
		return nil
	}
	defer func() { _ = e.rollback(ctx) }()
	if err := e.exec(ctx, "CREATE SCHEMA "+variantSchema); err != nil {
		return nil
	}
	var refused error
	for _, stmt := range engineDDL {
		if refused = e.exec(ctx, stmt); refused != nil {
			break
		}
	}
	ddl := strings.Join(judgeDDL, "\n")
	_, lerr := catalog.LoadDDL(ddl, catalog.Postgres)
	if refused == nil || lerr != nil {
		return nil
	}
	f := base
	f.Kind, f.Class, f.Source = "schema the engine refuses loaded", "33.14", "schema variant"
	f.Pair = Pair{Schema: tg.name, Engine: "postgres", Family: "schema-variant", Mutation: "schema-variant/" + mutation, Class: "33.14", Reference: ddl}
	f.Why = "PostgreSQL refuses the schema (" + firstLine(refused.Error()) + "); catalog.LoadDDL loads it"
	f.Database = judgeDDL
	return []Finding{f}
}

// variantTable writes t's CREATE TABLE twice: qualified by the scratch
// schema for the engine, plain for the judge. Types are written by
// category so that the variant needs no enum, domain or collation.
func variantTable(t *mtable, names map[string]bool, fkToNonKey bool, m *meta) (string, string) {
	var cols []string
	for _, c := range t.cols {
		typ := variantTypes[c.cat]
		if typ == "" {
			typ = "text"
		}
		cols = append(cols, pgIdent(c.name)+" "+typ)
	}
	if len(t.pk) > 0 {
		cols = append(cols, "PRIMARY KEY ("+identList(t.pk)+")")
	}
	for _, u := range t.uniques {
		cols = append(cols, "UNIQUE ("+identList(u)+")")
	}
	var plain, qualified []string
	for _, fk := range t.fks {
		if !names[fk.ref] || len(fk.refCols) == 0 || fk.refCols[0] == "" {
			continue
		}
		ref := fk.refCols
		if par := m.table(fk.ref); fkToNonKey && par != nil && len(fk.cols) == 1 {
			// a column of the parent that no key covers, of the same category
			for _, c := range par.cols {
				if c.name != ref[0] && !inKey(par, c.name) && c.cat == t.col(fk.cols[0]).cat {
					ref = []string{c.name}
					break
				}
			}
		}
		clause := "FOREIGN KEY (" + identList(fk.cols) + ") REFERENCES %s (" + identList(ref) + ")"
		plain = append(plain, fmt.Sprintf(clause, pgIdent(fk.ref)))
		qualified = append(qualified, fmt.Sprintf(clause, variantSchema+"."+pgIdent(fk.ref)))
	}
	body := func(fks []string) string { return strings.Join(append(append([]string(nil), cols...), fks...), ", ") }
	return "CREATE TABLE " + variantSchema + "." + pgIdent(t.name) + " (" + body(qualified) + ")",
		"CREATE TABLE " + pgIdent(t.name) + " (" + body(plain) + ");"
}

var variantTypes = map[category]string{
	catInt: "integer", catSmallint: "smallint", catNumeric: "numeric", catReal: "real", catFloat8: "double precision",
	catText: "text", catBpchar: "text", catBool: "boolean", catDate: "date", catTimestamp: "timestamp",
	catTstz: "timestamptz", catInterval: "interval", catJSON: "json", catJSONB: "jsonb", catEnum: "text",
}

func inKey(t *mtable, col string) bool {
	for _, set := range uniqueSets(t) {
		for _, c := range set {
			if c == col {
				return true
			}
		}
	}
	return false
}

func identList(cols []string) string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = pgIdent(c)
	}
	return strings.Join(out, ", ")
}
