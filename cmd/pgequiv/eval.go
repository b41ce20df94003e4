package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/pgequiv/pgequiv/cmd/pgequiv/internal/progress"
	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/eval/evaluation"
	"github.com/pgequiv/pgequiv/eval/gmntrain"
	"github.com/pgequiv/pgequiv/eval/metrics"
	"github.com/pgequiv/pgequiv/internal/dataset"
)

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	schemasDir := fs.String("schemas", "", "directory of <db>.sql schemas (default: schemas/ beside the dataset)")
	out := fs.String("out", "", "write one JSON line per pair: id, label, score, verdict")
	plot := fs.String("plot", "", "draw the ROC curve to this PNG file")
	workers := fs.Int("workers", 0, "parallel judges (default: all cores)")
	engines := addEngineFlags(fs, true)
	useGMN := engines.gmn
	gmnScores := fs.String("gmn-scores", "", "use these GMN scores (JSON lines {id, score}, as `pgequiv train --cv --oof` writes) instead of a model")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the judging to this file (go tool pprof)")
	folds := fs.Int("folds", 0, "also report AUC per db-grouped fold (the folds of `pgequiv train --cv K`)")
	parameterize := fs.Bool("parameterize-candidate", false, "replace every literal of each candidate with a parameter $n (the reference keeps its literals) before judging: a pair is then equivalent only if it is for every value of the parameters")
	var policies policyFlags
	fs.Var(&policies, "policy", "judge policy key=value (repeatable); eval's default is column_order=ignore, as execution accuracy compares columns")
	var files evalFilesFlags
	files.register(fs)
	var llm llmFlags
	llm.register(fs)
	if err := fs.Parse(args); err != nil || (fs.NArg() != 1) == (files.gold == "") {
		fmt.Fprintln(stderr, "usage: pgequiv eval [--schemas DIR] [--db-dir database/] [--tables tables.json] [--out scores.jsonl] [--plot roc.png] DATASET.jsonl")
		fmt.Fprintln(stderr, "       pgequiv eval --gold GOLD --pred PRED [--tables tables.json] [--db-dir database/] [--out items.jsonl] [--format text|json]")
		return exitError{2}
	}
	if bad := files.misplaced(fs); bad != "" {
		fmt.Fprintf(stderr, "eval: --%s does not apply in this mode (DATASET.jsonl mode only: --schemas, --plot, --gmn-scores, --folds, --parameterize-candidate; evaluation-file mode only: --gold, --pred, --format)\n", bad)
		return exitError{2}
	}
	// eval is a batch of short judgements whose live heap stays small (tens
	// of MB): collecting less often saves about a fifth of its CPU time.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	policies = evalPolicies(policies)
	if files.gold != "" {
		return runEvalFiles(ctx, files, policies, llm, engines, *workers, *out, stdout, stderr)
	}
	file := fs.Arg(0)
	schemas, err := datasetSchemas(*schemasDir, file, files)
	if err != nil {
		return err
	}
	if *gmnScores != "" {
		*useGMN = false // the precomputed scores stand in for the model
	}
	opts, err := commandOptions(policies, engines, &llm)
	if err != nil {
		return err
	}
	var precomputed map[string]float64
	if *gmnScores != "" {
		if precomputed, err = readGMNScores(*gmnScores); err != nil {
			return err
		}
	}
	pairs, err := dataset.ReadPairsFile(file)
	if err != nil {
		return err
	}
	if pairs, err = skipSchemaless(pairs, schemas, stdout); err != nil {
		return err
	}
	paramCount := map[string]int{}
	if *parameterize {
		paramCount = parameterizeCandidates(pairs, stdout)
	}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	bar := progress.New(stderr, "judging", len(pairs))
	start := time.Now()
	results, err := evaluation.Run(ctx, pairs, schemas, evaluation.Options{Judge: opts, Workers: *workers, Progress: func() { bar.Add(1) }})
	bar.Finish()
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	if precomputed != nil {
		if err := rescoreGMN(results, precomputed, *gmnScores, opts); err != nil {
			return err
		}
	}
	if *out != "" {
		if err := writeEvalScores(*out, results, paramCount); err != nil {
			return err
		}
	}
	sum, err := evaluation.Summarize(results)
	if err != nil {
		return err
	}
	sum.Elapsed = elapsed
	if *plot != "" && sum.Curve == nil {
		fmt.Fprintf(stderr, "eval: --plot %s: no ROC curve, every pair has the same label\n", *plot)
	} else if *plot != "" {
		if err := metrics.PlotROC(*plot, metrics.NamedCurve{Name: "pgequiv", Curve: sum.Curve}); err != nil {
			return err
		}
	}
	writeRunHeader(stdout, policies.String(), opts.Refute, results, func(r evaluation.Result) equivalence.Verdict { return r.Verdict })
	sum.Print(stdout)
	if *folds > 0 {
		return printFoldAUCs(stdout, results, *folds)
	}
	return nil
}

// parameterizeCandidates replaces every literal of each candidate with a
// parameter $n (--parameterize-candidate), says how many it replaced, and
// returns the number of parameters by pair ID.
func parameterizeCandidates(pairs []dataset.Pair, stdout io.Writer) map[string]int {
	paramCount := map[string]int{}
	changed, lits := 0, 0
	for i := range pairs {
		var n int
		if pairs[i].Candidate, n = dataset.ParameterizeLiterals(pairs[i].Candidate); n > 0 {
			changed++
			lits += n
			paramCount[pairs[i].ID] = n
		}
	}
	fmt.Fprintf(stdout, "parameterized candidates: %d of %d (%d literals replaced by $n)\n", changed, len(pairs), lits)
	return paramCount
}

// startCPUProfile profiles the CPU into path (--cpuprofile) until stop.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("eval: --cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("eval: --cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// rescoreGMN rescores each judged pair with its precomputed GMN score
// (--gmn-scores, read from path) in place of the model's.
func rescoreGMN(results []evaluation.Result, precomputed map[string]float64, path string, opts equivalence.Options) error {
	for i, r := range results {
		g, ok := precomputed[r.Pair.ID]
		if !ok {
			return fmt.Errorf("eval: --gmn-scores %s has no score for pair %q", path, r.Pair.ID)
		}
		if r.Err == nil {
			results[i].Verdict = equivalence.RescoreGMN(r.Verdict, g, opts)
		}
	}
	return nil
}

// writeEvalScores writes one JSON line per pair to path (--out).
func writeEvalScores(path string, results []evaluation.Result, paramCount map[string]int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := dataset.NewScoreWriter(f)
	for _, r := range results {
		verdict := string(r.Verdict.Label)
		if r.Err != nil {
			verdict = "error"
		}
		row := dataset.Score{ID: r.Pair.ID, Label: r.Pair.Label, Score: r.Verdict.Score, Verdict: verdict, Params: paramCount[r.Pair.ID]}
		if ce := r.Verdict.Counterexample; ce != nil {
			row.Refuted, row.Needs, row.ColumnOrderOnly = true, ce.Needs, ce.ColumnOrderOnly
		}
		for _, a := range r.Verdict.ProvedUnder {
			row.ProvedUnder = append(row.ProvedUnder, a.String())
		}
		if err := w.Write(row); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readGMNScores reads JSON lines {"id": ..., "score": ...}.
func readGMNScores(path string) (map[string]float64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("eval: --gmn-scores: %w", err)
	}
	out := map[string]float64{}
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var rec struct {
			ID    string   `json:"id"`
			Score *float64 `json:"score"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil || rec.ID == "" || rec.Score == nil {
			return nil, fmt.Errorf("eval: --gmn-scores %s line %d: want {\"id\": ..., \"score\": ...}", path, i+1)
		}
		out[rec.ID] = *rec.Score
	}
	return out, nil
}

// printFoldAUCs prints the AUC of each db-grouped fold and their mean.
func printFoldAUCs(w io.Writer, results []evaluation.Result, k int) error {
	dbs := make([]string, len(results))
	for i, r := range results {
		dbs[i] = r.Pair.DB
	}
	fold, err := gmntrain.DBFolds(dbs, k)
	if err != nil {
		return err
	}
	var sum float64
	for f := 0; f < k; f++ {
		var scores []float64
		var labels []bool
		for _, r := range results {
			if fold[r.Pair.DB] == f {
				scores = append(scores, r.Verdict.Score)
				labels = append(labels, r.Pair.Label == 1)
			}
		}
		auc, err := metrics.AUC(scores, labels)
		if err != nil {
			return fmt.Errorf("eval: fold %d: %w", f+1, err)
		}
		sum += auc
		fmt.Fprintf(w, "fold %d: AUC %.4f (%d pairs)\n", f+1, auc, len(scores))
	}
	fmt.Fprintf(w, "db-grouped %d-fold mean AUC %.4f\n", k, sum/float64(k))
	return nil
}
