// Command mutationsuite measures how often the judge refutes a realistic
// bug. It mutates each reference query of the corpora given (the shared
// pairs files: the prover suites' TPC-H, TPC-C, Spark and CockroachDB
// queries over PostgreSQL, the Spider gold queries over SQLite) with each
// mutation operator (mutate.go) at the SQL level (pg_query: parse,
// mutate, deparse; sites chosen by -seed), judges the deparsed reference
// against each mutant with the default options, replays every
// counterexample on the real engine, and runs both queries on the engine
// over -dbs small databases of the refuter's generator under another
// seed to tell whether the engine shows the mutant different at all.
//
//	go run ./scripts/mutationsuite [-per-op 1] [-max 0] [-dbs 24] [-out m.jsonl] [-list] testdata/shared/data/provers/tpch.jsonl testdata/shared/data/spider_pair_dev.jsonl
//
// It reports per corpus and operator: mutants, refuted (and of them
// replayed), proved, unknown, invalid on the engine, and the refutation
// rate among the mutants the engine shows different. A proof of a mutant
// the engine shows different, or a counterexample that does not replay,
// is a wrong label and makes the command exit 1.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pgequiv/pgequiv/internal/pgtest"
)

func main() {
	cfg := config{}
	flag.IntVar(&cfg.PerOp, "per-op", 1, "mutants per query and operator")
	flag.IntVar(&cfg.MaxQueries, "max", 0, "queries per corpus (0: all)")
	flag.IntVar(&cfg.EngineDBs, "dbs", 24, "databases per mutant the engine runs both queries on")
	flag.DurationVar(&cfg.Budget, "budget", 0, "the judge's refute budget (0: its default)")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "chooses the mutation sites and the engine's databases")
	out := flag.String("out", "", "write one JSON record per mutant here")
	list := flag.Bool("list", false, "print each engine-distinguishable mutant left unrefuted, and each proved one")
	pgConn := flag.String("pg", "", "a PostgreSQL connection string naming dbname=postgres (default: start a throwaway cluster)")
	flag.Parse()
	if err := run(context.Background(), cfg, *pgConn, *out, *list, flag.Args(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mutationsuite:", err)
		os.Exit(2)
	}
}

func run(ctx context.Context, cfg config, pgConn, out string, list bool, files []string, w io.Writer) error {
	needPG := false
	for _, f := range files {
		needPG = needPG || !strings.Contains(f, "spider")
	}
	if needPG && pgConn == "" {
		c, err := pgtest.Start(pgtest.Options{})
		if err != nil {
			return err
		}
		defer func() { _ = c.Stop() }()
		pgConn = c.ConnString(pgtest.SuperUser, "")
	}
	cfg.PGConn = pgConn
	var enc *json.Encoder
	if out != "" {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer f.Close()
		enc = json.NewEncoder(f)
	}
	var all []record
	for _, file := range files {
		err := runCorpus(ctx, cfg, file, func(r record) {
			all = append(all, r)
			if enc != nil {
				_ = enc.Encode(r)
			}
			if list && (r.Distinct && r.Label != "not_equivalent" || r.Label == "equivalent" || r.Label == "equivalent_under_assumptions") {
				fmt.Fprintf(w, "%s %s %s %s distinct=%v limit=%v (%s)\n  ref: %s\n  mut: %s\n", r.Corpus, r.Query, r.Op, r.Label, r.Distinct, r.Limit, r.Why, r.Reference, r.Mutant)
			}
		})
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
	}
	if wrong := report(w, all); wrong > 0 {
		return fmt.Errorf("%d wrong labels", wrong)
	}
	return nil
}

// tally counts one corpus's (or operator's) mutants by outcome.
type tally struct {
	mutants, refuted, replayed, proved, unknown, invalid, errors int
	distinct, distinctRefuted, wrong                             int
	// assumed counts mutants proved under assumptions (a foreign key
	// or a key SQLite does not enforce holds) that the engine shows
	// different on a database breaking them: not wrong, and not in the
	// refutation rate's denominator, since the verdict names the data
	// that tells them apart.
	assumed int
}

func (t *tally) add(r record) {
	t.mutants++
	switch r.Label {
	case "invalid":
		t.invalid++
		return
	case "not_equivalent":
		t.refuted++
		if r.Replayed {
			t.replayed++
		} else {
			t.wrong++
		}
	case "equivalent":
		t.proved++
		if r.Distinct {
			t.wrong++
		}
	case "equivalent_under_assumptions":
		t.proved++
		if r.Distinct {
			t.assumed++
			return
		}
	case "error":
		t.errors++
	default:
		t.unknown++
	}
	if r.Distinct {
		t.distinct++
		if r.Label == "not_equivalent" {
			t.distinctRefuted++
		}
	}
}

func (t tally) String() string {
	rate := "-"
	if t.distinct > 0 {
		rate = fmt.Sprintf("%.1f%%", 100*float64(t.distinctRefuted)/float64(t.distinct))
	}
	return fmt.Sprintf("%5d mutants: refuted %4d (replayed %4d), proved %3d, unknown %4d, invalid %3d, error %2d; engine-distinguishable %4d, refuted %4d (%s); assumed away %d; wrong %d",
		t.mutants, t.refuted, t.replayed, t.proved, t.unknown, t.invalid, t.errors, t.distinct, t.distinctRefuted, rate, t.assumed, t.wrong)
}

// report prints the tallies per corpus and operator, and overall, and
// returns the number of wrong labels.
func report(w io.Writer, all []record) int {
	var total tally
	byCorpus := map[string]map[string]*tally{}
	var corpora []string
	byOp := map[string]*tally{}
	for _, r := range all {
		if byCorpus[r.Corpus] == nil {
			byCorpus[r.Corpus] = map[string]*tally{}
			corpora = append(corpora, r.Corpus)
		}
		for _, key := range []string{"", r.Op} {
			if byCorpus[r.Corpus][key] == nil {
				byCorpus[r.Corpus][key] = &tally{}
			}
			byCorpus[r.Corpus][key].add(r)
		}
		if byOp[r.Op] == nil {
			byOp[r.Op] = &tally{}
		}
		byOp[r.Op].add(r)
		total.add(r)
	}
	for _, c := range corpora {
		fmt.Fprintf(w, "%-16s %s\n", c, byCorpus[c][""])
		for _, op := range operators {
			if t := byCorpus[c][op]; t != nil {
				fmt.Fprintf(w, "  %-16s %s\n", op, t)
			}
		}
	}
	fmt.Fprintln(w, "all corpora, per operator:")
	for _, op := range operators {
		if t := byOp[op]; t != nil {
			fmt.Fprintf(w, "  %-16s %s\n", op, t)
		}
	}
	fmt.Fprintf(w, "%-18s %s\n", "total", total)
	return total.wrong
}
