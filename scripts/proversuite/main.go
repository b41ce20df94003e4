// Command proversuite judges the pairs of prover-suite files (the shared
// format, with a pg_check field saying what PostgreSQL saw on random
// databases) and reports the verdicts by that class, the proving time
// per pair (planning, rules and proof: the judgement less its search and
// scores), and, with -list, each pair left unproved with its reason.
//
//	go run ./scripts/proversuite [-list] testdata/shared/data/provers/cockroach.jsonl
//
// Pairs whose pg_check starts with "same" should be proved; a proof of a
// pair whose pg_check starts with "differs", or a not_equivalent verdict
// on a "same" pair, is a wrong label and makes the command exit 1.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

type pair struct {
	ID        string `json:"id"`
	DB        string `json:"db"`
	Reference string `json:"reference"`
	Candidate string `json:"candidate"`
	PGCheck   string `json:"pg_check"`
}

func main() {
	list := flag.Bool("list", false, "print each pg_check=same pair left unproved, with its reason")
	budget := flag.Duration("budget", 0, "the judge's counterexample search budget per pair (0: its default)")
	flag.Parse()
	wrong := 0
	for _, file := range flag.Args() {
		w, err := run(file, *list, *budget)
		if err != nil {
			fmt.Fprintln(os.Stderr, "proversuite:", err)
			os.Exit(2)
		}
		wrong += w
	}
	if wrong > 0 {
		os.Exit(1)
	}
}

func run(file string, list bool, budget time.Duration) (int, error) {
	f, err := os.Open(file)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var pairs []pair
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var p pair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return 0, fmt.Errorf("%s:%d: %w", file, n, err)
		}
		pairs = append(pairs, p)
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("%s: %w", file, err)
	}
	schemas := map[string]*catalog.Schema{}
	counts := map[string]map[string]int{}
	var proveTimes []time.Duration
	var maxTotal time.Duration
	wrong := 0
	opts := equivalence.Options{}
	opts.Refute.Budget = budget
	for _, p := range pairs {
		class, _, _ := strings.Cut(p.PGCheck, "_")
		class, _, _ = strings.Cut(class, ":")
		if class == "" {
			class = "same" // suites without pg_check: every pair validated the same
		}
		s, ok := schemas[p.DB]
		if !ok {
			path := filepath.Join(filepath.Dir(file), "schemas", p.DB+".sql")
			ddl, err := os.ReadFile(path)
			if err != nil {
				return 0, err
			}
			if s, err = catalog.LoadDDL(string(ddl), catalog.Postgres); err != nil {
				return 0, fmt.Errorf("%s: %w", path, err)
			}
			schemas[p.DB] = s
		}
		v, err := equivalence.Judge(context.Background(), s, p.Reference, p.Candidate, opts)
		outcome := string(v.Label)
		reason := ""
		if err != nil {
			outcome, reason = "error", err.Error()
		} else if len(v.Differences) > 0 {
			d := v.Differences[0]
			reason = fmt.Sprintf("%s: %s | %s", d.Component, d.Reference, d.Candidate)
		}
		if counts[class] == nil {
			counts[class] = map[string]int{}
		}
		counts[class][outcome]++
		t := v.Timings
		proveTimes = append(proveTimes, t.Total-t.Refute-t.Score)
		maxTotal = max(maxTotal, t.Total)
		if class == "same" && v.Label == equivalence.NotEquivalent || class == "differs" && v.Label.Proved() {
			wrong++
			fmt.Printf("WRONG %s %s on a %q pair\n", p.ID, v.Label, p.PGCheck)
		}
		if list && class == "same" && err == nil && !v.Label.Proved() || list && class == "same" && err != nil {
			fmt.Printf("%s\t%s\t%s\n", p.ID, outcome, reason)
		}
	}
	fmt.Printf("%s: %d pairs\n", file, len(pairs))
	classes := make([]string, 0, len(counts))
	for c := range counts {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	for _, c := range classes {
		var parts []string
		for _, o := range []string{"equivalent", "equivalent_under_assumptions", "unknown", "not_equivalent", "error"} {
			if n := counts[c][o]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", o, n))
			}
		}
		fmt.Printf("  pg_check %s: %s\n", c, strings.Join(parts, ", "))
	}
	slices.Sort(proveTimes)
	pct := func(q float64) time.Duration { return proveTimes[int(q*float64(len(proveTimes)-1))] }
	if len(proveTimes) > 0 {
		fmt.Printf("  proving time per pair: median %v, p99 %v, max %v; longest judgement %v\n", pct(0.5), pct(0.99), proveTimes[len(proveTimes)-1], maxTotal)
	}
	fmt.Printf("  wrong labels: %d\n", wrong)
	return wrong, nil
}
