package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/pgequiv/pgequiv/cmd/pgequiv/internal/progress"
	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/eval/spidereval"
	"github.com/pgequiv/pgequiv/planner/catalog/tablesjson"
)

// evalFilesFlags are eval's flags for Spider/BIRD evaluation files.
type evalFilesFlags struct {
	gold, pred, tables, dbDir, format string
	execute                           bool
	execTimeout                       time.Duration
}

func (f *evalFilesFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.gold, "gold", "", "Spider/BIRD gold file: SQL<TAB>db_id lines, or BIRD's JSON (switches eval to evaluation-file mode)")
	fs.StringVar(&f.pred, "pred", "", "predictions, one SQL a line in the gold file's order, or BIRD's JSON")
	fs.StringVar(&f.tables, "tables", "", "Spider/BIRD tables.json")
	fs.StringVar(&f.dbDir, "db-dir", "", "directory of <db>/<db>.sqlite files; their DDL is read (never a row) and wins over tables.json")
	fs.StringVar(&f.format, "format", "text", "summary format in evaluation-file mode: text or json")
	fs.BoolVar(&f.execute, "execute", false, "also run both queries on every .sqlite file of each item's --db-dir directory and report the official EX and test-suite EX beside the verdict")
	fs.DurationVar(&f.execTimeout, "exec-timeout", spidereval.DefaultExecTimeout, "per-query timeout of --execute")
}

// misplaced returns the first flag set that belongs to the other mode of
// eval, or "".
func (f *evalFilesFlags) misplaced(fs *flag.FlagSet) string {
	datasetOnly := map[string]bool{"schemas": true, "plot": true, "gmn-scores": true, "folds": true, "parameterize-candidate": true}
	filesOnly := map[string]bool{"pred": true, "format": true, "execute": true, "exec-timeout": true}
	bad := ""
	fs.Visit(func(fl *flag.Flag) {
		if bad == "" && ((f.gold != "" && datasetOnly[fl.Name]) || (f.gold == "" && filesOnly[fl.Name])) {
			bad = fl.Name
		}
	})
	return bad
}

// runEvalFiles is `pgequiv eval --gold --pred`: per-item JSONL to out
// (when given) and the per-hardness summary to stdout.
func runEvalFiles(ctx context.Context, f evalFilesFlags, policies policyFlags, llm llmFlags, engines *engineFlags, workers int, out string, stdout, stderr io.Writer) error {
	if f.pred == "" || (f.tables == "" && f.dbDir == "") {
		fmt.Fprintln(stderr, "eval: --gold needs --pred and at least one of --tables and --db-dir")
		return exitError{2}
	}
	if f.execute && f.dbDir == "" {
		fmt.Fprintln(stderr, "eval: --execute needs --db-dir")
		return exitError{2}
	}
	if f.format != "text" && f.format != "json" {
		fmt.Fprintf(stderr, "eval: --format %q: want text or json\n", f.format)
		return exitError{2}
	}
	// preset=test-suite is the official metric's conventions, applied to
	// the texts here, not a judge policy.
	var preset string
	var judged policyFlags
	for _, p := range policies {
		if k, v, _ := strings.Cut(p, "="); k == "preset" {
			if v != spidereval.PresetTestSuite {
				return fmt.Errorf("eval: --policy preset=%s: unknown preset (want %s)", v, spidereval.PresetTestSuite)
			}
			preset = v
			continue
		}
		judged = append(judged, p)
	}
	opts, err := commandOptions(judged, engines, &llm)
	if err != nil {
		return err
	}
	schemas := &spidereval.Schemas{DBDir: f.dbDir}
	if f.tables != "" {
		if schemas.Tables, err = tablesjson.Read(f.tables); err != nil {
			return err
		}
	}
	if f.dbDir != "" {
		if st, err := os.Stat(f.dbDir); err != nil || !st.IsDir() {
			return fmt.Errorf("eval: --db-dir %s is not a directory", f.dbDir)
		}
	}
	items, err := spidereval.ReadFiles(f.gold, f.pred)
	if err != nil {
		return err
	}
	bar := progress.New(stderr, "judging", len(items))
	start := time.Now()
	results, err := spidereval.Run(ctx, items, schemas, spidereval.Options{Judge: opts, Workers: workers, Progress: func() { bar.Add(1) }, Preset: preset})
	bar.Finish()
	if err != nil {
		return err
	}
	if f.execute {
		if err := executeItems(ctx, items, results, f, preset, workers, stderr); err != nil {
			return err
		}
	}
	sum := spidereval.Summarize(results)
	sum.Preset = preset
	sum.Elapsed = time.Since(start)
	sum.Seconds = sum.Elapsed.Seconds()
	if out != "" {
		w, err := os.Create(out)
		if err != nil {
			return err
		}
		if err := spidereval.WriteJSONL(w, results); err != nil {
			w.Close()
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
	}
	if f.format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	writeRunHeader(stdout, judged.String(), opts.Refute, results, func(r spidereval.Result) equivalence.Verdict { return r.Verdict })
	if preset != "" {
		fmt.Fprintln(stdout, spidereval.PresetTestSuiteNote)
	}
	if f.execute {
		fmt.Fprintln(stdout, execLine(preset, f.execTimeout))
	}
	sum.Print(stdout)
	return nil
}
