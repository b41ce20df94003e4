// Command tpcdsbench measures the judge's verdict latency on TPC-DS-size
// queries, with the options the proxy judges with by default (issue 39
// acceptance 5: a TPC-DS-size pair's verdict p99 within the default
// verdict_timeout; issue 35 acceptance 3: each query proved equal to
// itself with its WHERE terms and FROM lists reordered).
//
// The TPC-DS schema and queries are under the TPC's EULA and are not in
// this repository; the command reads them from a directory (-dir, or
// TPCDS_DIR) laid out as:
//
//	schema.sql     the CREATE TABLEs, PostgreSQL dialect
//	queryN.sql     one file per TPC-DS query N (1..99); a file with two
//	               statements (14, 23, 24, 39) gives pairs 14a and 14b
//
// For each statement it judges, against the statement as pg_query
// deparses it: the statement itself (identity), the statement with every
// FROM list and top-level WHERE conjunction reversed (reorder; and
// reorder_from, reorder_where with only one kind reversed), and one bug
// mutation per operator of rewrite.go. docs/bench-tpcds.md has the
// figures. Each pair gets the proxy's
// default verdict_timeout (less the share the proxy keeps to deliver the
// verdict) and refute budget, through an in-process judge that caches
// prepared references as the proxy's judge workers do (-cold: a fresh
// judge per pair, so that both queries are planned every time).
//
//	go run ./scripts/tpcdsbench -dir /tmp/tpcds [-cold] [-list] [-out pairs.jsonl]
//
// It prints the pairs by kind and label, latency quantiles, the pairs
// that ran into the timeout, errors, and the plan and plan+prove times;
// an equivalent rewrite labelled not_equivalent is a wrong label and
// makes the command exit 1 (a mutant proved equivalent is listed, to be
// checked by hand: some mutations do not change the result).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"time"
)

func main() {
	cfg := proxyDefaults()
	dir := flag.String("dir", os.Getenv("TPCDS_DIR"), "directory with schema.sql and query*.sql (default $TPCDS_DIR)")
	flag.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, "verdict_timeout (default: the proxy's)")
	flag.DurationVar(&cfg.Budget, "budget", cfg.Budget, "refute_budget (default: the proxy's)")
	flag.BoolVar(&cfg.Cold, "cold", false, "judge every pair with a fresh judge (no prepared reference reused)")
	flag.StringVar(&cfg.Only, "only", "", "judge only this query (a number, or 14a)")
	checkPG := flag.Bool("pg", false, "check every statement on a throwaway PostgreSQL cluster (EXPLAIN): which references PostgreSQL refuses too, which mutants are invalid")
	pgConn := flag.String("pg-conn", "", "with -pg, a superuser connection string naming dbname=postgres instead of a throwaway cluster")
	list := flag.Bool("list", false, "print every reorder pair not proved, every timeout and every proved mutant")
	out := flag.String("out", "", "write one JSON record per pair here")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the judging here (go tool pprof)")
	flag.Parse()
	if *dir == "" {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	ctx := context.Background()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "tpcdsbench: -cpuprofile:", err)
			os.Exit(2)
		}
		defer pprof.StopCPUProfile()
	}
	if *checkPG {
		ddl, err := os.ReadFile(filepath.Join(*dir, "schema.sql"))
		if err == nil {
			cfg.PG, err = startPG(ctx, *pgConn, string(ddl))
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "tpcdsbench: -pg:", err)
			os.Exit(2)
		}
		defer cfg.PG.close()
	}
	if err := run(ctx, *dir, cfg, *out, *list, os.Stdout); err != nil {
		cfg.PG.close()
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "tpcdsbench:", err)
		if err == errWrongLabels {
			os.Exit(1)
		}
		os.Exit(2)
	}
}

const usage = `tpcdsbench: no TPC-DS directory (-dir or TPCDS_DIR).
It needs the TPC-DS schema and queries, which the TPC's EULA keeps out of
this repository; put them in one directory:
  schema.sql    the CREATE TABLE statements, PostgreSQL dialect
  queryN.sql    TPC-DS query N (1..99), PostgreSQL dialect ("+ 30 days"
                written "+ interval '30 days'"); two statements give Na, Nb
then run: TPCDS_DIR=/path scripts/bench-tpcds.sh
`

func run(ctx context.Context, dir string, cfg benchConfig, out string, list bool, w io.Writer) error {
	b, err := load(dir)
	if err != nil {
		return err
	}
	var enc *json.Encoder
	if out != "" {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer f.Close()
		enc = json.NewEncoder(f)
	}
	start := time.Now()
	results, err := judgeAll(ctx, b, cfg, func(r result) {
		if enc != nil {
			_ = enc.Encode(r)
		}
	})
	if err != nil {
		return err
	}
	wrong := report(w, b, cfg, results, list)
	fmt.Fprintf(w, "elapsed %v\n", time.Since(start).Round(time.Millisecond))
	if wrong > 0 {
		return errWrongLabels
	}
	return nil
}
