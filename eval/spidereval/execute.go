package spidereval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
)

// DefaultExecTimeout is the official script's per-query timeout
// (exec_eval.py's TIMEOUT). Its asyncio.wait_for cannot interrupt
// sqlite3's blocking call, so there a slow query runs on; here the query
// is interrupted, and the item counted wrong and marked timed out.
const DefaultExecTimeout = 60 * time.Second

// ExecOptions configure Execute.
type ExecOptions struct {
	DBDir   string        // <DBDir>/<db>/*.sqlite
	Timeout time.Duration // per query; 0: DefaultExecTimeout
	// KeepDistinct keeps DISTINCT in both queries (the official
	// --keep_distinct); false removes it, the official default, which
	// the test-suite preset asks for.
	KeepDistinct bool
	Workers      int // 0: all cores
}

// Execution is one item's execution accuracy as the official script
// computes it: exec_eval.py's eval_exec_match without plug_value.
type Execution struct {
	// EX: the results are equal (result_eq) on <db>/<db>.sqlite.
	EX bool `json:"ex"`
	// TestSuite: equal on every database file of the directory whose name
	// contains ".sqlite" (test-suite EX; EX itself where there is one).
	TestSuite bool `json:"test_suite_ex"`
	Files     int  `json:"files"`
	// FailedOn is the first file (sorted by name, the main one first)
	// where they differ or the prediction fails.
	FailedOn string `json:"failed_on,omitempty"`
	// PredError is the prediction's error there (counted wrong).
	PredError string `json:"pred_error,omitempty"`
	// GoldError: the gold query failed on a file (the official script
	// stops on an assertion); the item's EX is then not defined.
	GoldError string `json:"gold_error,omitempty"`
	TimedOut  bool   `json:"timed_out,omitempty"`
	// QuickRejOnly: the results were equal but for quick_rej's sort
	// artefact (see resulteq.go), which made the official rule say wrong.
	QuickRejOnly bool `json:"quick_rej_only,omitempty"`
	// KeepDistinct is test-suite EX with DISTINCT kept, given where the
	// official default removed DISTINCT from a text and the item passed:
	// false says the removal is what made it right.
	KeepDistinct *bool `json:"test_suite_ex_keep_distinct,omitempty"`
}

// DatabaseFiles lists the files the official script runs an item of db
// on: every name in <dir>/<db> containing ".sqlite", the main
// <db>.sqlite first, the rest by name.
func DatabaseFiles(dir, db string) ([]string, error) {
	d := filepath.Join(dir, db)
	ents, err := os.ReadDir(d)
	if err != nil {
		return nil, fmt.Errorf("spidereval: database %s: %w", db, err)
	}
	main := db + ".sqlite"
	var out []string
	hasMain := false
	for _, e := range ents {
		if !strings.Contains(e.Name(), ".sqlite") || e.IsDir() {
			continue
		}
		if e.Name() == main {
			hasMain = true
			continue
		}
		out = append(out, filepath.Join(d, e.Name()))
	}
	if !hasMain {
		return nil, fmt.Errorf("spidereval: database %s: no %s", db, filepath.Join(d, main))
	}
	sort.Strings(out)
	return append([]string{filepath.Join(d, main)}, out...), nil
}

// Execute computes every item's execution accuracy. A missing database
// directory is an error before any query runs.
func Execute(ctx context.Context, items []Item, opts ExecOptions) ([]Execution, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultExecTimeout
	}
	files := map[string][]string{}
	for _, it := range items {
		if _, ok := files[it.DB]; ok {
			continue
		}
		fs, err := DatabaseFiles(opts.DBDir, it.DB)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", it.GoldAt, err)
		}
		files[it.DB] = fs
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	out := make([]Execution, len(items))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = executeItem(ctx, items[i], files[items[i].DB], opts)
				it := items[i]
				if out[i].TestSuite && !opts.KeepDistinct && (RemoveDistinct(it.Gold) != it.Gold || RemoveDistinct(it.Pred) != it.Pred) {
					kept := opts
					kept.KeepDistinct = true
					ts := executeItem(ctx, it, files[it.DB], kept).TestSuite
					out[i].KeepDistinct = &ts
				}
			}
		}()
	}
	for i := range items {
		select {
		case next <- i:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

func executeItem(ctx context.Context, it Item, files []string, opts ExecOptions) Execution {
	gold, pred := officialText(it.Gold, opts.KeepDistinct), officialText(it.Pred, opts.KeepDistinct)
	ordered := orderMatters(gold)
	ex := Execution{Files: len(files), EX: true, TestSuite: true}
	for k, f := range files {
		g, err := queryFile(ctx, f, gold, opts.Timeout)
		if err != nil {
			ex.GoldError = fmt.Sprintf("%s: %v", filepath.Base(f), err)
			ex.TimedOut = ex.TimedOut || err == errTimeout
			ex.EX, ex.TestSuite = false, false
			return ex
		}
		p, err := queryFile(ctx, f, pred, opts.Timeout)
		ok := err == nil && resultEq(g, p, ordered)
		if !ok {
			ex.FailedOn = filepath.Base(f)
			if err != nil {
				ex.PredError = err.Error()
				ex.TimedOut = err == errTimeout
			} else if resultEqWith(g, p, ordered, false) {
				ex.QuickRejOnly = true
			}
			ex.TestSuite = false
			if k == 0 {
				ex.EX = false
			}
			return ex
		}
	}
	return ex
}
