package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/eval/evaluation"
	"github.com/pgequiv/pgequiv/eval/selection"
	"github.com/pgequiv/pgequiv/eval/spidereval"
	"github.com/pgequiv/pgequiv/internal/dataset"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/catalog/tablesjson"
)

const selectUsage = "usage: pgequiv select [--schemas DIR | --db-dir DIR [--tables tables.json]] [--budget 10s] [--out selections.jsonl] [--brief] GROUPS.jsonl\n" +
	"       pgequiv select --pairs PAIRS.jsonl [--write-groups groups.jsonl] [flags]   (groups labelled pairs by db and reference)"

// selectRecord is one output line of `pgequiv select --out`.
type selectRecord struct {
	ID          string                 `json:"id"`
	DB          string                 `json:"db"`
	Chosen      int                    `json:"chosen"`
	ChosenSQL   string                 `json:"chosen_sql,omitempty"`
	ChosenLabel *int                   `json:"chosen_label,omitempty"`
	Classes     []selection.Class      `json:"classes"`
	Dropped     []selection.Dropped    `json:"dropped,omitempty"`
	Separations []selection.Separation `json:"separations,omitempty"`
	Instances   int                    `json:"instances"`
	Notes       []string               `json:"notes,omitempty"`
	Error       string                 `json:"error,omitempty"`
	ElapsedNS   time.Duration          `json:"elapsed_ns"`
}

func runSelect(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("select", flag.ContinueOnError)
	fs.SetOutput(stderr)
	schemasDir := fs.String("schemas", "", "directory of <db>.sql schemas (default: schemas/ beside the input)")
	dbDir := fs.String("db-dir", "", "directory of <db>/<db>.sqlite files (Spider/BIRD's layout): their DDL is the schema (never a row is read); replaces --schemas")
	tables := fs.String("tables", "", "Spider/BIRD tables.json, for databases without a file under --db-dir; replaces --schemas")
	pairsFile := fs.String("pairs", "", "build the groups from a labelled pair file (pgequiv eval's format), grouping by db and reference; the reference is not given to the selector")
	writeGroups := fs.String("write-groups", "", "also write the groups read or built to this JSONL file")
	out := fs.String("out", "", "write one JSON line per group: chosen candidate, classes and why")
	budget := fs.Duration("budget", selection.DefaultBudget, "wall-clock safety net per group: the work is bounded by --instances, so a selection does not depend on the machine's load, unless this ends it first (the result then says so)")
	seed := fs.Uint64("seed", 1, "seed of the generated databases")
	instances := fs.Int("instances", 300, "generated databases per group (fewer when the budget runs out first)")
	dialect := fs.String("dialect", "postgres", "dialect of groups that name none")
	brief := fs.Bool("brief", false, "print only the summary, not each group")
	mixedOnly := fs.Bool("mixed-only", false, "select only labelled groups with a correct and a wrong candidate (the ones accuracy is reported on)")
	workers := fs.Int("workers", 0, "groups selected in parallel (default: all cores)")
	useGMN := fs.Bool("gmn", false, "add the shipped graph matching network's score to the judge's pairwise scores (used for candidates the executor does not model)")
	var policies policyFlags
	fs.Var(&policies, "policy", "judge policy key=value (repeatable); column_order=ignore also compares results up to column order")
	if err := fs.Parse(args); err != nil || (fs.NArg() == 1) == (*pairsFile != "") {
		fmt.Fprintln(stderr, selectUsage)
		return exitError{2}
	}
	jopts, err := judgeOptions(policies, *useGMN)
	if err != nil {
		return err
	}
	input := *pairsFile
	if input == "" {
		input = fs.Arg(0)
	}
	if *schemasDir == "" {
		*schemasDir = filepath.Join(filepath.Dir(input), "schemas")
	}
	groups, err := readSelectInput(input, *pairsFile != "")
	if err != nil {
		return err
	}
	if *mixedOnly {
		var kept []selection.Group
		for _, g := range groups {
			if g.Labels != nil && g.Mixed() {
				kept = append(kept, g)
			}
		}
		groups = kept
	}
	if *writeGroups != "" {
		if err := writeGroupsFile(*writeGroups, groups); err != nil {
			return err
		}
	}
	judger, err := equivalence.NewJudger(equivalence.JudgerOptions{})
	if err != nil {
		return err
	}
	sopts := selection.Options{Judge: jopts, Judger: judger, Budget: *budget, Seed: *seed, MaxInstances: *instances}
	var schemas evaluation.SchemaSource = &evaluation.Schemas{Dir: *schemasDir}
	if *dbDir != "" || *tables != "" {
		// The real databases' DDL, as eval --gold/--pred reads it.
		if *dbDir != "" {
			if st, err := os.Stat(*dbDir); err != nil || !st.IsDir() {
				return fmt.Errorf("select: --db-dir %s is not a directory", *dbDir)
			}
		}
		sp := &spidereval.Schemas{DBDir: *dbDir}
		if *tables != "" {
			if sp.Tables, err = tablesjson.Read(*tables); err != nil {
				return fmt.Errorf("select: --tables: %w", err)
			}
		}
		schemas = sp
	}
	records := selectAll(ctx, groups, schemas, *dialect, sopts, *workers)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if *out != "" {
		if err := writeJSONL(*out, records); err != nil {
			return err
		}
	}
	if !*brief {
		for i, r := range records {
			printSelection(stdout, groups[i], r)
		}
	}
	printSelectSummary(stdout, groups, records, *budget)
	return nil
}

func readSelectInput(path string, pairs bool) ([]selection.Group, error) {
	if pairs {
		ps, err := dataset.ReadPairsFile(path)
		if err != nil {
			return nil, err
		}
		return selection.GroupsFromPairs(ps), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gs, err := selection.ReadGroups(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return gs, nil
}

func writeGroupsFile(path string, groups []selection.Group) error {
	recs := make([]any, len(groups))
	for i := range groups {
		recs[i] = groups[i]
	}
	return writeJSONL(path, recs)
}

func writeJSONL[T any](path string, recs []T) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			f.Close()
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return f.Close()
}

// selectAll selects every group, workers at a time; a group whose schema
// does not load gets a record with the error, the others go on.
func selectAll(ctx context.Context, groups []selection.Group, schemas evaluation.SchemaSource, dialect string, opts selection.Options, workers int) []selectRecord {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	records := make([]selectRecord, len(groups))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, max(len(groups), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				records[i] = selectOne(ctx, groups[i], schemas, dialect, opts)
			}
		}()
	}
	for i := range groups {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return records
}

func selectOne(ctx context.Context, g selection.Group, schemas evaluation.SchemaSource, dialect string, opts selection.Options) selectRecord {
	rec := selectRecord{ID: g.ID, DB: g.DB, Chosen: -1}
	dname := g.Dialect
	if dname == "" {
		dname = dialect
	}
	d, err := catalog.ParseDialect(dname)
	if err != nil {
		rec.Error = fmt.Sprintf("group %s (line %d): %v", g.ID, g.Line, err)
		return rec
	}
	s, err := schemas.Get(g.DB, d)
	if err != nil {
		rec.Error = fmt.Sprintf("group %s: %v", g.ID, err)
		return rec
	}
	res, err := selection.Select(ctx, s, g.Candidates, opts)
	rec.Chosen, rec.Classes, rec.Dropped, rec.Separations = res.Chosen, res.Classes, res.Dropped, res.Separations
	rec.Instances, rec.Notes, rec.ElapsedNS = res.Instances, res.Notes, res.Elapsed
	if err != nil {
		rec.Error = err.Error()
	}
	if res.Chosen >= 0 {
		rec.ChosenSQL = g.Candidates[res.Chosen]
		if g.Labels != nil {
			l := g.Labels[res.Chosen]
			rec.ChosenLabel = &l
		}
	}
	return rec
}

func printSelection(w io.Writer, g selection.Group, r selectRecord) {
	fmt.Fprintf(w, "group %s (%s): %d candidates", g.ID, g.DB, len(g.Candidates))
	if r.Error != "" {
		fmt.Fprintf(w, "\n  error: %s\n\n", r.Error)
		return
	}
	fmt.Fprintf(w, ", %d classes, %d databases, %v\n", len(r.Classes), r.Instances, r.ElapsedNS.Round(time.Microsecond))
	if r.Chosen >= 0 {
		fmt.Fprintf(w, "  chosen #%d: %s\n", r.Chosen, clipLine(g.Candidates[r.Chosen], 160))
	}
	for k, c := range r.Classes {
		fmt.Fprintf(w, "  class %d %v score %.3f", k, c.Members, c.Score)
		if !c.Executed {
			fmt.Fprint(w, " (not executed)")
		}
		fmt.Fprintln(w)
		for _, why := range c.Why {
			fmt.Fprintf(w, "    - %s\n", why)
		}
	}
	for _, s := range r.Separations {
		fmt.Fprintf(w, "  classes %d and %d differ by %s", s.A, s.B, s.By)
		if ce := s.Counterexample; ce != nil {
			db := "the empty database"
			if len(ce.Inserts) > 0 {
				db = fmt.Sprintf("%d row(s) %s", ce.Rows, clipLine(strings.Join(ce.Inserts, " "), 160))
			}
			fmt.Fprintf(w, ": on %s, %d row(s) vs %d", db, ce.Reference.Count, ce.Candidate.Count)
			if len(ce.Needs) > 0 {
				fmt.Fprintf(w, " (needs %s)", strings.Join(ce.Needs, ", "))
			}
		}
		fmt.Fprintln(w)
	}
	for _, d := range r.Dropped {
		kind := "dropped"
		if d.Invalid {
			kind = "invalid"
		}
		fmt.Fprintf(w, "  %s #%d: %s\n", kind, d.Index, d.Reason)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	fmt.Fprintln(w)
}

func clipLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// printSelectSummary prints counts and time per group and, for labelled
// groups with a correct and a wrong candidate, the selection accuracy
// beside a random pick, the most frequent text and the oracle.
func printSelectSummary(w io.Writer, groups []selection.Group, records []selectRecord, budget time.Duration) {
	var times []time.Duration
	errs, dropped, invalid := 0, 0, 0
	for _, r := range records {
		if r.Error != "" {
			errs++
		}
		dropped += len(r.Dropped)
		for _, d := range r.Dropped {
			if d.Invalid {
				invalid++
			}
		}
		times = append(times, r.ElapsedNS)
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	var total time.Duration
	for _, t := range times {
		total += t
	}
	fmt.Fprintf(w, "groups: %d (errors %d, candidates dropped as unplannable %d, of which invalid %d: the engine rejects them too); budget %v per group\n", len(groups), errs, dropped, invalid, budget)
	if len(times) > 0 {
		fmt.Fprintf(w, "time per group: mean %v, median %v, max %v\n", (total / time.Duration(len(times))).Round(time.Microsecond),
			times[len(times)/2].Round(time.Microsecond), times[len(times)-1].Round(time.Microsecond))
	}
	var n int
	var acc, random, freq float64
	for i, g := range groups {
		if g.Labels == nil || !g.Mixed() {
			continue
		}
		n++
		if l := records[i].ChosenLabel; l != nil && *l == 1 {
			acc++
		}
		random += g.RandomExpectation()
		freq += g.MostFrequentExpectation()
	}
	if n == 0 {
		return
	}
	f := float64(n)
	fmt.Fprintf(w, "selection accuracy on %d labelled groups with a correct and a wrong candidate:\n", n)
	fmt.Fprintf(w, "  pgequiv select      %.3f\n  random pick         %.3f (expected)\n  most frequent text  %.3f (expected, ties broken at random)\n  oracle              1.000\n", acc/f, random/f, freq/f)
	fmt.Fprintf(w, "accuracy=%.4f random=%.4f most_frequent=%.4f oracle=1 groups=%d\n", acc/f, random/f, freq/f, n)
}
