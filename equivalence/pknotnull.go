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
// The judge therefore tries, for a pair not proved under the declared
// schema, a proof under the schema with those columns NOT NULL; a proof
// there is equivalent_under_assumptions, naming primary_key_not_null for
// each such table the queries read, as a proof through an unenforced
// foreign key names foreign_key_holds. Otherwise the verdict under the
// declared schema stands (with its counterexample, which may need that
// NULL: it is a database SQLite accepts).
//
// A pkProbe makes that proof at the counterexample search's checkpoint:
// once the first typical databases (no NULL anywhere, so legal under the
// assumed schema too) showed no difference. A proof there makes the rest
// of the search pointless, as any counterexample left must hold a NULL
// key; without the checkpoint, every pair proved this way paid for a
// whole search first (a sixth of eval's time on the Spider pairs).
type pkProbe struct {
	ctx                  context.Context
	assumed              *catalog.Schema
	read                 []string // the tables with nullable keys the queries read
	reference, candidate string
	opts                 Options // the prover's: no search, no adviser, no probe
	memo                 memo

	tried, proved bool
	verdict       Verdict // the proof, when proved
}

// pkProbeAfter is how many typical databases the search tries before its
// checkpoint. On the shared Spider pairs a checkpoint after 16 tries the
// proof on 112 pairs that then differ on ordinary data (after 64, on 25),
// but a pair the proof settles skips the rest of the search: measured
// side by side, eval ran about 5% faster with 16 (or 8) than with 64.
const pkProbeAfter = 16

// newPKProbe returns the probe for a pair, or nil when the schema is not
// SQLite, has no nullable primary key, or the queries read none.
func newPKProbe(ctx context.Context, s *catalog.Schema, reference, candidate string, opts Options, m memo) *pkProbe {
	if s.Dialect != catalog.SQLite {
		return nil
	}
	assumed, nullable := pkNotNullSchema(s)
	if assumed == nil {
		return nil
	}
	read := readNullableKeyTables(ctx, assumed, nullable, reference, candidate)
	if len(read) == 0 {
		return nil // nil: cannot be told; empty: the keys cannot matter
	}
	names := make([]string, 0, len(read))
	for n := range read {
		names = append(names, n)
	}
	sort.Strings(names)
	o := opts
	o.Refute.Off = true // only a proof is wanted here
	o.Adviser = nil
	o.pkProbe = nil
	o.proveOnly = true
	return &pkProbe{ctx: ctx, assumed: assumed, read: names, reference: reference, candidate: candidate, opts: o, memo: m}
}

// prove tries the proof once; it reports whether the pair is proved
// under the assumed schema.
func (p *pkProbe) prove() bool {
	if p.tried {
		return p.proved
	}
	p.tried = true
	if p.ctx.Err() != nil {
		return false
	}
	v, err := judgeUnder(p.ctx, p.assumed, p.reference, p.candidate, p.opts, p.memo)
	if err != nil || !v.Label.Proved() {
		return false
	}
	p.verdict, p.proved = v, true
	return true
}

// settled reports whether the probe proved the pair, so the judge under
// the declared schema can stop where it is.
func (p *pkProbe) settled() bool { return p != nil && p.proved }

// finish is the verdict of a proved probe: the proof, naming the
// assumption for each table read, with the time the declared schema's
// judgement took as well.
func (p *pkProbe) finish(strict Verdict, opts Options) Verdict {
	v := p.verdict
	for _, n := range p.read {
		v.Assumptions = mergeAssumptions(v.Assumptions, []Assumption{{Kind: AssumePrimaryKeyNotNull, Subject: n}})
	}
	v.Label = EquivalentUnderAssumptions
	v.Timings.Total += strict.Timings.Total
	band(&v, opts)
	return v
}

// judgeSQLiteKeys judges a SQLite pair whose queries read tables with
// nullable primary keys: under the declared schema, with probe offered
// to the search's checkpoint, and, where the search did not reach it
// (no search, a cached one, a difference on the first databases), with
// the proof tried afterwards unless the queries differ on ordinary data.
func judgeSQLiteKeys(ctx context.Context, s *catalog.Schema, reference, candidate string, opts Options, m memo, probe *pkProbe) (Verdict, error) {
	o := opts
	o.pkProbe = probe
	v, err := judgeUnder(ctx, s, reference, candidate, o, m)
	if err != nil {
		return v, err
	}
	if probe.settled() {
		return probe.finish(v, opts), nil
	}
	if v.Label.Proved() || probe.tried {
		return v, nil
	}
	if ce := v.Counterexample; ce != nil && len(ce.Needs) == 0 {
		// The queries differ on ordinary data, which holds no NULL at
		// all: no proof can rest on keys without NULLs.
		return v, nil
	}
	if probe.prove() {
		return probe.finish(v, opts), nil
	}
	return v, nil
}

// readNullableKeyTables names the tables of nullable whose keys the
// queries may rely on (nil when that cannot be told). Without views a
// table is read only where its name stands in a query's text, so the
// names found there (a superset: a name may also be a column's or a
// string's) serve without planning the queries again; with views, the
// plans tell.
//
// A key, or its columns being NOT NULL, can matter only to a query that
// refers to a key column: by name (USING lists included), through a
// star, or through a NATURAL join's implied columns. Where neither query
// does, the keys-not-NULL schema makes the same plans and the same
// proof, so the probe is left out (empty): of the Spider pairs' probes,
// more than half were such pairs, all failing, and each cost a second
// planning and proof.
func readNullableKeyTables(ctx context.Context, s *catalog.Schema, nullable map[string]bool, queries ...string) map[string]bool {
	read := map[string]bool{}
	views := false
	for _, t := range s.Tables {
		views = views || t.IsView()
	}
	if !views {
		texts := make([]string, len(queries))
		words := map[string]bool{}
		for i, q := range queries {
			texts[i] = strings.ToLower(q)
			addWords(words, texts[i])
		}
		keyed := false
		for n := range nullable {
			if !mentioned(strings.ToLower(n), words, texts) {
				continue
			}
			read[n] = true
			t := s.Table(n)
			if t == nil {
				return nil
			}
			for _, o := range t.PrimaryKey {
				keyed = keyed || mentioned(strings.ToLower(t.Columns[o].Name), words, texts)
			}
		}
		if !keyed && !words["natural"] && !hasStar(texts) {
			return map[string]bool{}
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

// addWords adds the identifier-like words of lower-cased text q to words.
func addWords(words map[string]bool, q string) {
	start := -1
	for i := 0; i <= len(q); i++ {
		word := i < len(q) && (q[i] == '_' || q[i] == '$' && start >= 0 || q[i] >= '0' && q[i] <= '9' || q[i] >= 'a' && q[i] <= 'z' || q[i] >= 0x80)
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			words[q[start:i]] = true
			start = -1
		}
	}
}

// mentioned reports whether the lower-cased table or column name stands in the
// texts: as a word, or, for a name that is not one word (a quoted
// "Student ID"), anywhere.
func mentioned(name string, words map[string]bool, texts []string) bool {
	if words[name] {
		return true
	}
	one := map[string]bool{}
	addWords(one, name)
	if len(one) == 1 && one[name] {
		return false // a plain word, and not among the texts' words
	}
	for _, q := range texts {
		if strings.Contains(q, name) {
			return true
		}
	}
	return false
}

// hasStar reports whether a text holds a * other than count(*)'s: a
// star select list or a multiplication, either of which may stand for a
// key column (the latter is taken as one too, which costs only a probe).
func hasStar(texts []string) bool {
	for _, q := range texts {
		for i := strings.IndexByte(q, '*'); i >= 0; {
			l := strings.TrimRight(q[:i], " \t\r\n")
			r := strings.TrimLeft(q[i+1:], " \t\r\n")
			if !strings.HasSuffix(l, "(") || !strings.HasPrefix(r, ")") {
				return true
			}
			next := strings.IndexByte(q[i+1:], '*')
			if next < 0 {
				break
			}
			i += 1 + next
		}
	}
	return false
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
	var cols []columnRef
	nullable := map[string]bool{}
	for _, t := range s.Tables {
		for _, o := range t.PrimaryKey {
			if !t.Columns[o].NotNull {
				nullable[t.Name] = true
				cols = append(cols, columnRef{t.Name, t.Columns[o].Name})
			}
		}
	}
	var a pkAssumed
	if len(nullable) > 0 {
		if as := notNullSchema(s, cols); as != nil {
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
