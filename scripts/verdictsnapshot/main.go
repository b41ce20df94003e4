// Command verdictsnapshot judges every pair of pair files (the shared
// Spider and prover-suite format) and prints each full verdict as one JSON
// line, timings and the search's typical-database count zeroed: two snapshots taken before and after a change
// that must not alter behaviour (a refactor) compare with diff.
//
//	go run ./scripts/verdictsnapshot [-policy column_order=ignore] [-drop-rules] FILE.jsonl... > snap.jsonl
//
// A pair file's schemas are in schemas/ beside it (<db>.sql), in the
// dialect its pairs name.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

type pair struct {
	ID        string `json:"id"`
	DB        string `json:"db"`
	Dialect   string `json:"dialect"`
	Reference string `json:"reference"`
	Candidate string `json:"candidate"`
}

type line struct {
	ID      string               `json:"id"`
	Error   string               `json:"error,omitempty"`
	Verdict *equivalence.Verdict `json:"verdict,omitempty"`
}

func main() {
	var policies multiFlag
	flag.Var(&policies, "policy", "judge policy key=value (repeatable)")
	workers := flag.Int("workers", 1, "parallel judges: more than one lets shared caches see pairs in another order")
	budget := flag.Duration("budget", 0, "the counterexample search's budget per pair (0: the judge's default); a long one makes the search end on its instance count, not the clock, so that snapshots taken on a loaded machine compare")
	dropRules := flag.Bool("drop-rules", false, "leave the rule names out (for a change that renames rules only)")
	flag.Parse()
	var opts equivalence.Options
	opts.Refute.Budget = *budget
	for _, p := range policies {
		k, v, _ := strings.Cut(p, "=")
		if err := opts.SetPolicy(k, v); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	j, err := equivalence.NewJudger(equivalence.JudgerOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for _, file := range flag.Args() {
		if err := snapshot(j, file, opts, *dropRules, workers, out); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

func snapshot(j *equivalence.Judger, file string, opts equivalence.Options, dropRules bool, workers *int, out *bufio.Writer) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var pairs []pair
	for i, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		var p pair
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			return fmt.Errorf("%s:%d: %w", file, i+1, err)
		}
		pairs = append(pairs, p)
	}
	schemas := map[string]*catalog.Schema{}
	schemaErr := map[string]error{}
	for _, p := range pairs {
		key := p.Dialect + "/" + p.DB
		if _, ok := schemas[key]; ok || schemaErr[key] != nil {
			continue
		}
		ddl, err := os.ReadFile(filepath.Join(filepath.Dir(file), "schemas", p.DB+".sql"))
		if err == nil {
			d := catalog.SQLite
			if p.Dialect == "postgres" {
				d = catalog.Postgres
			}
			schemas[key], err = catalog.LoadDDL(string(ddl), d)
		}
		if err != nil {
			schemaErr[key] = err
		}
	}
	lines := make([]line, len(pairs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range *workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				p := pairs[i]
				key := p.Dialect + "/" + p.DB
				l := line{ID: p.ID}
				if err := schemaErr[key]; err != nil {
					l.Error = "schema: " + err.Error()
				} else if v, err := j.Judge(context.Background(), schemas[key], p.Reference, p.Candidate, opts); err != nil {
					l.Error = err.Error()
				} else {
					v.Timings = equivalence.Timings{}
					if v.Search != nil {
						// Which tier a database came from follows the
						// clock (tiers.go); the count of databases does not.
						v.Search.Typical = 0
					}
					if dropRules {
						v.Rules = nil
					}
					l.Verdict = &v
				}
				lines[i] = l
			}
		}()
	}
	for i := range pairs {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, l := range lines {
		b, err := json.Marshal(l)
		if err != nil {
			return err
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	return nil
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
