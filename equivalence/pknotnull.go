package equivalence

import (
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// SQLite lets the PRIMARY KEY columns of a rowid table hold NULL (all
// but the INTEGER rowid alias; catalog.Keys), so the catalog declares
// them nullable and such a key is no key. Real data rarely holds such a
// NULL, and the Spider schemas, for one, rely on the keys throughout.
// provePrimaryKeysNotNull therefore tries, for a pair not proved under
// the declared schema, a proof under the schema with those columns NOT
// NULL; a proof there is equivalent_under_assumptions, naming
// primary_key_not_null for each such table the queries read, as a proof
// through an unenforced foreign key names foreign_key_holds. Otherwise
// the verdict under the declared schema stands (with its counterexample,
// which may need that NULL: it is a database SQLite accepts).
func provePrimaryKeysNotNull(ctx context.Context, s *catalog.Schema, reference, candidate string, opts Options, j *Judger, strict Verdict) Verdict {
	if ce := strict.Counterexample; ce != nil && len(ce.Needs) == 0 {
		// The queries differ on ordinary data, which holds no NULL at
		// all: no proof can rest on keys without NULLs.
		return strict
	}
	assumed, nullable := pkNotNullSchema(s)
	if assumed == nil || ctx.Err() != nil {
		return strict
	}
	o := opts
	o.Refute.Off = true // only a proof is wanted here
	o.Adviser = nil
	v, err := judgeUnder(ctx, assumed, reference, candidate, o, j)
	if err != nil || !v.Label.Proved() {
		return strict
	}
	read := readNullableKeyTables(ctx, assumed, nullable, reference, candidate)
	if read == nil {
		return strict
	}
	if len(read) == 0 {
		return strict // the keys read are not the reason (cannot happen: the schemas differ only there)
	}
	names := make([]string, 0, len(read))
	for n := range read {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v.Assumptions = mergeAssumptions(v.Assumptions, []Assumption{{Kind: AssumePrimaryKeyNotNull, Subject: n}})
	}
	v.Label = EquivalentUnderAssumptions
	v.Timings.Total += strict.Timings.Total
	band(&v, opts)
	return v
}

// readNullableKeyTables names the tables of nullable that the queries
// read (nil when that cannot be told). Without views a table is read
// only where its name stands in a query's text, so the names found there
// (a superset: a name may also be a column's or a string's) serve
// without planning the queries again; with views, the plans tell.
func readNullableKeyTables(ctx context.Context, s *catalog.Schema, nullable map[string]bool, queries ...string) map[string]bool {
	read := map[string]bool{}
	views := false
	for _, t := range s.Tables {
		views = views || t.IsView()
	}
	if !views {
		for _, q := range queries {
			words := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
				return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127)
			})
			for _, w := range words {
				for n := range nullable {
					if strings.EqualFold(n, w) {
						read[n] = true
					}
				}
			}
		}
		return read
	}
	for _, q := range queries {
		p, err := planner.Plan(ctx, s, q, planner.Options{})
		if err != nil {
			return nil
		}
		for _, in := range p.Meta.Instances {
			if in.Table != nil && nullable[in.Table.Name] {
				read[in.Table.Name] = true
			}
		}
	}
	return read
}

// pkNotNullSchemas caches, by fingerprint, a SQLite schema with its
// nullable primary key columns made NOT NULL (nil: it has none), and the
// names of the tables concerned.
var pkNotNullSchemas sync.Map // fingerprint → pkAssumed

// pkNotNullMax bounds pkNotNullSchemas (a proxy serving many databases,
// an eval over many schemas).
const pkNotNullMax = 256

type pkAssumed struct {
	s        *catalog.Schema
	nullable map[string]bool
}

func pkNotNullSchema(s *catalog.Schema) (*catalog.Schema, map[string]bool) {
	if v, ok := pkNotNullSchemas.Load(s.Fingerprint()); ok {
		a := v.(pkAssumed)
		return a.s, a.nullable
	}
	var tables []*catalog.Table
	nullable := map[string]bool{}
	for _, t := range s.Tables {
		c := *t
		for _, o := range t.PrimaryKey {
			if !t.Columns[o].NotNull {
				if !nullable[t.Name] {
					c.Columns = append([]catalog.Column(nil), t.Columns...)
				}
				nullable[t.Name] = true
				c.Columns[o].NotNull = true
			}
		}
		tables = append(tables, &c)
	}
	var a pkAssumed
	if len(nullable) > 0 {
		if as, err := catalog.NewSchema(s.Dialect, tables); err == nil {
			a = pkAssumed{s: as, nullable: nullable}
		}
	}
	n := 0
	pkNotNullSchemas.Range(func(any, any) bool { n++; return n < pkNotNullMax })
	if n >= pkNotNullMax {
		pkNotNullSchemas.Clear() // bounded: past that many schemas, start over
	}
	pkNotNullSchemas.Store(s.Fingerprint(), a)
	return a.s, a.nullable
}
