// Package campaign is the standing soundness campaign of issue 18: pairs
// of related queries over a constraint- and type-rich schema corpus are
// judged by the product, and every proved label is checked on the real
// engine (PostgreSQL 15, SQLite 3). An `equivalent` must hold on every
// database the engine accepts: both queries run on many databases, made
// both by the product's own generator (the refuter's) and by an
// independent one that inserts random rows through the real DDL and
// keeps what the engine accepts. A `not_equivalent` must rest on a
// database the engine accepts, on which the engine's results differ.
//
// The schema goes to the judge through the product's normal path
// (catalog.LoadDDL on the pg_dump output; sqlitefile.Load on the SQLite
// file, and LoadDDL on its DDL); nothing is pre-digested. The generators
// and the oracle read the schema from the engine itself.
package campaign

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/catalog/sqlitefile"
)

//go:embed testdata/pg/*.sql testdata/sqlite/*.sql
var corpus embed.FS

// Schemas lists the corpus's schemas for an engine ("postgres" or
// "sqlite"): name and DDL.
func Schemas(engine string) (map[string]string, error) {
	dir := "testdata/pg"
	if engine == "sqlite" {
		dir = "testdata/sqlite"
	}
	ents, err := corpus.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("campaign corpus: %w", err)
	}
	out := map[string]string{}
	for _, e := range ents {
		b, err := corpus.ReadFile(path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("campaign corpus: %w", err)
		}
		out[strings.TrimSuffix(e.Name(), ".sql")] = string(b)
	}
	return out, nil
}

// schemaFile is the repository path of a corpus schema.
func schemaFile(engine, name string) string {
	dir := "pg"
	if engine == "sqlite" {
		dir = "sqlite"
	}
	return "eval/campaign/testdata/" + dir + "/" + name + ".sql"
}

// Options configure a run on one engine.
type Options struct {
	Engine string // "postgres" or "sqlite"
	// Duration and MaxPairs bound the run (whichever comes first; a zero
	// one does not bound).
	Duration time.Duration
	MaxPairs int
	Seed     uint64
	// Families, when set, is a regular expression: only the families
	// whose names it matches are drawn (a run aimed at some causes).
	Families string
	// States is the number of databases each generator makes per proved
	// equivalence (default 12).
	States int
	// JudgeBudget bounds each judgement (default 2 s, check's --timeout).
	JudgeBudget time.Duration
	// OutDir, when set, receives findings-<engine>.jsonl.
	OutDir string
	// PGConn is a connection string (dbname=postgres) to a PostgreSQL 15
	// cluster where databases may be created; WorkDir holds the SQLite
	// files.
	PGConn, WorkDir string
	// Logf, when set, reports progress.
	Logf func(format string, args ...any)
}

// Finding is a wrong proved label (or, with Kind "display-only", an
// equivalence the engine shows only in how values print), with its
// repro: schema, both queries and the database.
type Finding struct {
	Engine      string   `json:"engine"`
	Kind        string   `json:"kind"`
	Class       string   `json:"class"`
	Pair        Pair     `json:"pair"`
	Loader      string   `json:"loader"`
	PairSeed    uint64   `json:"pair_seed"`
	Label       string   `json:"label"`
	Rules       []string `json:"rules,omitempty"`
	Assumptions []string `json:"assumptions,omitempty"`
	Why         string   `json:"why"`
	// SchemaFile is the corpus file of the schema, for
	// `pgequiv check --schema FILE [--dialect sqlite] REF CAND`.
	SchemaFile string   `json:"schema_file"`
	Source     string   `json:"database_source"`
	TimeZone   string   `json:"time_zone,omitempty"`
	Database   []string `json:"database"`
	RefResult  string   `json:"reference_result"`
	CandResult string   `json:"candidate_result"`
}

// Stats are a run's counts.
type Stats struct {
	Engine                                                string
	Pairs, Equivalent, UnderAssumptions, NotEquivalent    int
	Unknown, JudgeErrors, StatesChecked, CounterexChecked int
	JudgeErrorKinds                                       map[string]int
	// Wrong are the wrong proved labels; Display the equivalences that
	// hold by value but not in print.
	Wrong, Display []Finding
	// Illegal counts the refuter-made databases the engine refused, by
	// cause: no label rests on them, but a counterexample could.
	Illegal        map[string]int
	IllegalExample map[string]string
	// BothFail counts counterexamples on which the engine fails both
	// queries; Slow the proved pairs whose check stopped at a query that
	// ran out of time.
	BothFail, Slow int
	// OracleErrors are failures of the campaign's own machinery (a lost
	// connection): a run with any is not a clean run.
	OracleErrors []string
	LoadProblems []string
	ByFamily     map[string]*[3]int // proved equivalent, refuted, unknown
	// FamilyTime is the time spent per family, judging and checking.
	FamilyTime map[string]time.Duration
	Elapsed    time.Duration
}

// WrongByClass counts wrong labels per cause.
func (s *Stats) WrongByClass() map[string]int {
	out := map[string]int{}
	for _, f := range s.Wrong {
		out[f.Class]++
	}
	return out
}

// classTitles name the causes of issue 18.
var classTitles = map[string]string{
	"1": "CHECK constraints", "2": "ALTER TABLE keys / NOT NULL / FKs", "3": "expression and partial unique indexes",
	"4": "generated columns", "5": "domains and enums", "6": "inheritance and partitions", "7": "deferrable constraints",
	"8": "collations", "9": "casts within a type family", "10": "float4/float8 literals, -0, numeric scale",
	"11": "substituting join-equal columns", "12": "interval equality, timestamptz offsets", "13": "volatile functions",
	"14": "data-modifying CTEs", "15": "ORDER BY feeding an order-sensitive consumer", "16": "self-join on a key",
	"17": "SQLite affinity", "18": "dialect fidelity (a query the engine rejects)", "other": "other",
	// issue 33's causes; "33.E" is the evidence rule for not_equivalent
	"33.1": "window aggregate FILTER", "33.2": "row-valued IS [NOT] NULL", "33.3": "SELECT * over USING/NATURAL",
	"33.4": "typed literal spellings", "33.5": "errors the engine always raises", "33.6": "a view's frozen SELECT *",
	"33.7": "DDL inside BEGIN … ROLLBACK", "33.8": "SQLite bare columns beside min()/max()",
	"33.9": "SQLite tied rows under LIMIT, join order", "33.10": "SQLite compound columns' affinity",
	"33.11": "SQLite rowid alias declarations", "33.12": "SQLite affinity from the type name", "33.13": "valid SQLite forms",
	"33.14": "a schema the engine rejects", "33.E": "not_equivalent without evidence (LIMIT spellings, pinned sort keys, bounded inputs)",
}

// Run runs the campaign on one engine.
func Run(ctx context.Context, opts Options) (*Stats, error) {
	if opts.States <= 0 {
		opts.States = 12
	}
	if opts.JudgeBudget <= 0 {
		opts.JudgeBudget = 2 * time.Second
	}
	st := &Stats{Engine: opts.Engine, Illegal: map[string]int{}, JudgeErrorKinds: map[string]int{}, FamilyTime: map[string]time.Duration{}, IllegalExample: map[string]string{}, ByFamily: map[string]*[3]int{}}
	targets, err := openTargets(ctx, opts, st)
	if err != nil {
		return nil, err
	}
	defer closeTargets(targets)
	c := &campaignRun{opts: opts, st: st, logf: opts.Logf}
	if c.logf == nil {
		c.logf = func(string, ...any) {}
	}
	if opts.OutDir != "" {
		if err := os.MkdirAll(opts.OutDir, 0o755); err != nil {
			return nil, err
		}
		c.out, err = os.Create(filepath.Join(opts.OutDir, "findings-"+opts.Engine+".jsonl"))
		if err != nil {
			return nil, err
		}
		defer c.out.Close()
	}
	for _, t := range targets {
		if t.schema != nil {
			c.usable = append(c.usable, t)
		}
	}
	if len(c.usable) == 0 {
		return st, fmt.Errorf("campaign: no schema of the %s corpus loads: %v", opts.Engine, st.LoadProblems)
	}
	if opts.Families != "" {
		if c.only, err = regexp.Compile(opts.Families); err != nil {
			return st, fmt.Errorf("campaign: families: %w", err)
		}
	}
	c.start = time.Now()
	deadline := c.start.Add(opts.Duration)
	for i := 0; ; i++ {
		if ctx.Err() != nil || opts.MaxPairs > 0 && i >= opts.MaxPairs || opts.Duration > 0 && time.Now().After(deadline) {
			break
		}
		if !c.pair(ctx, i) {
			break
		}
	}
	st.Elapsed = time.Since(c.start)
	return st, nil
}

// closeTargets closes the engines of targets, each once.
func closeTargets(targets []*target) {
	closed := map[engine]bool{}
	for _, t := range targets {
		if !closed[t.eng] {
			closed[t.eng] = true
			t.eng.close()
		}
	}
}

// A campaignRun is Run's state: the targets whose schema loads
// (usable), the families drawn (only: nil, all), the findings file
// (out: nil, none) and when the run started.
type campaignRun struct {
	opts   Options
	st     *Stats
	usable []*target
	only   *regexp.Regexp
	out    *os.File
	logf   func(format string, args ...any)
	start  time.Time
}

// pair draws, judges and checks pair i; false says the run is over (ctx
// ended during the judgement).
func (c *campaignRun) pair(ctx context.Context, i int) bool {
	st := c.st
	seed := c.opts.Seed<<32 + uint64(i)
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	tg := c.usable[r.IntN(len(c.usable))]
	g := newGen(tg.meta, tg.eng.dialect(), r)
	g.schema, g.ddl, g.only = tg.schema, tg.ddl, c.only
	p := g.pair()
	p.Schema, p.Engine = tg.name, c.opts.Engine
	st.Pairs++
	fams := st.ByFamily[p.Family]
	if fams == nil {
		fams = &[3]int{}
		st.ByFamily[p.Family] = fams
	}
	pairStart := time.Now()
	v, err := judge(ctx, tg, p, seed, c.opts.JudgeBudget)
	if err != nil {
		if ctx.Err() != nil {
			return false
		}
		st.JudgeErrors++
		msg := positionRE.ReplaceAllString(firstLine(err.Error()), "")
		if len(msg) > 120 {
			msg = msg[:120]
		}
		st.JudgeErrorKinds[msg]++
		return true
	}
	found := c.check(ctx, i, tg, p, v, seed, r, fams)
	st.FamilyTime[p.Family] += time.Since(pairStart)
	for _, f := range found {
		c.record(f)
		if f.Kind == "display-only" {
			st.Display = append(st.Display, f)
			continue
		}
		st.Wrong = append(st.Wrong, f)
		c.logf("WRONG %s [class %s] %s/%s: %s\n  reference: %s\n  candidate: %s\n  %s", f.Kind, f.Class, f.Pair.Schema, f.Pair.Mutation, f.Why, p.Reference, p.Candidate, strings.Join(f.Database, " "))
	}
	if st.Pairs%100 == 0 {
		c.logf("%s: %d pairs, %d wrong, %v", c.opts.Engine, st.Pairs, len(st.Wrong), time.Since(c.start).Round(time.Second))
	}
	return true
}

// check checks verdict v of pair i, p, on the engine, counting it in st
// and fams (proved equivalent, refuted, unknown), and returns the
// findings: a wrong label, or an equivalence shown only in print.
func (c *campaignRun) check(ctx context.Context, i int, tg *target, p Pair, v equivalence.Verdict, seed uint64, r *rand.Rand, fams *[3]int) []Finding {
	st, eng := c.st, c.opts.Engine
	base := Finding{Engine: eng, Pair: p, Loader: tg.loader, PairSeed: seed, Label: string(v.Label), Rules: v.Rules, SchemaFile: schemaFile(eng, tg.name)}
	for _, a := range v.Assumptions {
		base.Assumptions = append(base.Assumptions, a.String())
	}
	var found []Finding
	switch v.Label {
	case equivalence.Equivalent, equivalence.EquivalentUnderAssumptions:
		if v.Label == equivalence.Equivalent {
			st.Equivalent++
		} else {
			st.UnderAssumptions++
		}
		fams[0]++
		found = checkEquivalent(ctx, tg, p, v, base, c.opts.States, seed, r, st)
	case equivalence.NotEquivalent:
		st.NotEquivalent++
		fams[1]++
		found = checkNotEquivalent(ctx, tg, p, v, base, st)
	default:
		st.Unknown++
		fams[2]++
		found = checkInvalid(ctx, tg, p, v, base)
	}
	if i%schemaVariantEvery == 0 {
		found = append(found, checkSchemaVariant(ctx, tg, r, Finding{Engine: eng, Loader: tg.loader, PairSeed: seed, SchemaFile: schemaFile(eng, tg.name)})...)
	}
	return found
}

// record writes finding f to the findings file, where there is one.
func (c *campaignRun) record(f Finding) {
	if c.out != nil {
		b, _ := json.Marshal(f)
		c.out.Write(append(b, '\n'))
	}
}

// openTargets creates every schema of the corpus on the engine and loads
// the product's catalog of it.
func openTargets(ctx context.Context, opts Options, st *Stats) ([]*target, error) {
	schemas, err := Schemas(opts.Engine)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(schemas))
	for n := range schemas {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []*target
	for _, name := range names {
		ddl := schemas[name]
		switch opts.Engine {
		case "postgres":
			// psql consumes pg_dump's meta-commands (\restrict); the
			// server never sees them.
			e, m, err := openPG(ctx, opts.PGConn, name, stripPsql(ddl))
			if err != nil {
				return nil, err
			}
			s, lerr := catalog.LoadDDL(ddl, catalog.Postgres)
			if lerr != nil {
				st.LoadProblems = append(st.LoadProblems, fmt.Sprintf("%s: catalog.LoadDDL of the pg_dump output: %v", name, lerr))
				s, lerr = catalog.LoadDDL(stripPsql(ddl), catalog.Postgres)
				if lerr != nil {
					st.LoadProblems = append(st.LoadProblems, fmt.Sprintf("%s: catalog.LoadDDL without psql meta-commands: %v", name, lerr))
				}
			}
			out = append(out, &target{name: name, ddl: ddl, schema: s, loader: "catalog.LoadDDL", meta: m, eng: e})
		case "sqlite":
			e, m, err := openSQLite(ctx, opts.WorkDir, name, ddl)
			if err != nil {
				return nil, err
			}
			fs, ferr := sqlitefile.Load(ctx, e.path)
			if ferr != nil {
				st.LoadProblems = append(st.LoadProblems, fmt.Sprintf("%s: sqlitefile.Load: %v", name, ferr))
			} else {
				out = append(out, &target{name: name, ddl: ddl, schema: fs.Schema, loader: "sqlitefile.Load", meta: m, eng: e})
			}
			s, lerr := catalog.LoadDDL(ddl, catalog.SQLite)
			if lerr != nil {
				st.LoadProblems = append(st.LoadProblems, fmt.Sprintf("%s: catalog.LoadDDL: %v", name, lerr))
			}
			out = append(out, &target{name: name, ddl: ddl, schema: s, loader: "catalog.LoadDDL", meta: m, eng: e})
		default:
			return nil, fmt.Errorf("campaign: unknown engine %q (want postgres or sqlite)", opts.Engine)
		}
	}
	return out, nil
}

// schemaVariantEvery is how often (in pairs) a variant of the pair's
// schema is created on the engine and loaded by the judge (PostgreSQL).
const schemaVariantEvery = 10

var positionRE = regexp.MustCompile(` at position \d+`)

// stripPsql drops the psql meta-command lines of a pg_dump output.
func stripPsql(ddl string) string {
	lines := strings.Split(ddl, "\n")
	out := lines[:0]
	for _, l := range lines {
		if !strings.HasPrefix(l, "\\") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
