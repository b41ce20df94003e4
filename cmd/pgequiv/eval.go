package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/pgequiv/pgequiv/equivalence/dataset"
	"github.com/pgequiv/pgequiv/equivalence/evaluation"
	"github.com/pgequiv/pgequiv/equivalence/metrics"
	"github.com/pgequiv/pgequiv/equivalence/progress"
)

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	schemasDir := fs.String("schemas", "", "directory of <db>.sql schemas (default: schemas/ beside the dataset)")
	out := fs.String("out", "", "write one JSON line per pair: id, label, score, verdict")
	plot := fs.String("plot", "", "draw the ROC curve to this PNG file")
	workers := fs.Int("workers", 0, "parallel judges (default: all cores)")
	useGMN := fs.Bool("gmn", false, "add the shipped graph matching network's score (about 1 ms a pair)")
	var policies policyFlags
	fs.Var(&policies, "policy", "judge policy key=value (repeatable)")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: pgequiv eval [--schemas DIR] [--out scores.jsonl] [--plot roc.png] DATASET.jsonl")
		return exitError{2}
	}
	file := fs.Arg(0)
	if *schemasDir == "" {
		*schemasDir = filepath.Join(filepath.Dir(file), "schemas")
	}
	opts, err := judgeOptions(policies, *useGMN)
	if err != nil {
		return err
	}
	pairs, err := dataset.ReadPairsFile(file)
	if err != nil {
		return err
	}
	bar := progress.New(stderr, "judging", len(pairs))
	start := time.Now()
	results, err := evaluation.Run(ctx, pairs, &evaluation.Schemas{Dir: *schemasDir}, evaluation.Options{Judge: opts, Workers: *workers, Progress: func() { bar.Add(1) }})
	bar.Finish()
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		w := dataset.NewScoreWriter(f)
		for _, r := range results {
			verdict := string(r.Verdict.Label)
			if r.Err != nil {
				verdict = "error"
			}
			if err := w.Write(dataset.Score{ID: r.Pair.ID, Label: r.Pair.Label, Score: r.Verdict.Score, Verdict: verdict}); err != nil {
				f.Close()
				return err
			}
		}
		if err := w.Flush(); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	sum, err := evaluation.Summarize(results)
	if err != nil {
		return err
	}
	sum.Elapsed = elapsed
	if *plot != "" {
		if err := metrics.PlotROC(*plot, metrics.NamedCurve{Name: "pgequiv", Curve: sum.Curve}); err != nil {
			return err
		}
	}
	sum.Print(stdout)
	return nil
}
