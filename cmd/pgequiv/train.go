package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/pgequiv/pgequiv/eval/gmntrain"
	"github.com/pgequiv/pgequiv/gmn"
)

// runTrain trains the graph matching network on a labelled dataset, runs
// db-grouped cross-validation with --cv, and writes the weights with --out.
func runTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "testdata/shared/data/spider_pair_dev.jsonl", "labelled pairs (JSONL)")
	schemas := fs.String("schemas", "testdata/shared/data/schemas", "directory of <db>.sql schemas")
	seed := fs.Uint64("seed", 1, "random seed (training is deterministic given seed and --workers)")
	epochs := fs.Int("epochs", 8, "supervised epochs")
	batch := fs.Int("batch", 32, "pair mini-batch size")
	lr := fs.Float64("lr", 1e-3, "Adam learning rate")
	pretrain := fs.Int("pretrain", 0, "GraphCL contrastive pre-training steps")
	encoder := fs.String("encoder", "ngram", "content encoder: ngram or cnn")
	hidden := fs.Int("hidden", 32, "node state width")
	steps := fs.Int("steps", 3, "propagation steps")
	perQuery := fs.Int("synth", 1, "synthetic rewrites of each kind (equivalent, not) per query")
	noSynth := fs.Bool("no-synth", false, "train on the real pairs only")
	realRepeat := fs.Int("real-repeat", 2, "times each real pair appears per epoch")
	workers := fs.Int("workers", runtime.NumCPU(), "goroutines")
	oof := fs.String("oof", "", "with --cv: write each pair's out-of-fold score as JSON lines {id, score}")
	cv := fs.Int("cv", 0, "run k-fold db-grouped cross-validation (k ≥ 2; --cv 5) instead of writing a model")
	out := fs.String("out", "", "write the trained weights to this file")
	plotFile := fs.String("plot", "", "write loss and AUC curves to this PNG")
	if err := fs.Parse(args); err != nil {
		return exitError{2}
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("unexpected arguments %v", fs.Args())
	}
	var enc gmn.EncoderKind
	switch *encoder {
	case "ngram":
		enc = gmn.EncoderNGram
	case "cnn":
		enc = gmn.EncoderCNN
	default:
		return fmt.Errorf("unknown --encoder %q (want ngram or cnn)", *encoder)
	}
	if *cv == 0 && *out == "" {
		return fmt.Errorf("nothing to do: give --cv 5 and/or --out FILE")
	}
	opts := gmntrain.Options{
		Seed:       *seed,
		Model:      gmn.Config{Hidden: *hidden, Steps: *steps, Encoder: enc},
		Epochs:     *epochs,
		Batch:      *batch,
		LR:         *lr,
		Pretrain:   *pretrain,
		RealRepeat: *realRepeat,
		Synth:      gmntrain.SynthOptions{PerQuery: *perQuery},
		NoSynth:    *noSynth,
		Workers:    *workers,
		Log: func(format string, a ...any) {
			fmt.Fprintf(stderr, "%s "+format+"\n", append([]any{time.Now().UTC().Format("15:04:05")}, a...)...)
		},
	}
	c, err := gmntrain.LoadCorpus(ctx, *data, *schemas)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "data: %d pairs (%d skipped), %d queries, %d databases\n", len(c.Items), c.Skipped, len(c.Queries), len(c.DBs()))
	var curves []gmntrain.NamedSeries
	if *cv > 0 {
		res, err := gmntrain.CrossValidate(ctx, c, *cv, opts)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "cross-validation (%d folds, db-grouped, encoder %s, seed %d):\n", *cv, enc, *seed)
		for _, f := range res.Folds {
			fmt.Fprintf(stdout, "  fold %d: AUC %.4f  score %s/pair  test %4d pairs  train %4d real + %d derived  %s  dbs %v\n",
				f.Fold, f.AUC, f.MedianScore.Round(time.Microsecond), f.Test, f.Train, f.History.TrainPairs-f.Train, f.History.Duration.Round(time.Second), f.TestDBs)
			curves = append(curves,
				gmntrain.NamedSeries{Name: fmt.Sprintf("fold %d loss", f.Fold), Panel: 0, Y: f.History.EpochLoss},
				gmntrain.NamedSeries{Name: fmt.Sprintf("fold %d AUC", f.Fold), Panel: 1, Y: f.History.EpochAUC})
		}
		fmt.Fprintf(stdout, "  mean AUC %.4f  median score %s/pair (1 goroutine)  (%s)\n",
			res.MeanAUC, res.MedianScore.Round(time.Microsecond), res.Duration.Round(time.Second))
		fmt.Fprintf(stdout, "  derived pairs, fold 1: %s\n", gmntrain.FormatCounts(res.Folds[0].History.Counts))
		if *oof != "" {
			if err := writeOutOfFold(*oof, res.OutOfFold); err != nil {
				return err
			}
		}
	}
	if *out != "" {
		m, h, err := gmntrain.Fit(ctx, c.Items, c.Queries, nil, opts)
		if err != nil {
			return err
		}
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		if err := m.Save(f); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "final model: %d pairs (%s), %d weights, trained in %s, wrote %s\n",
			h.TrainPairs, gmntrain.FormatCounts(h.Counts), m.NumWeights(), h.Duration.Round(time.Second), *out)
		curves = append(curves, gmntrain.NamedSeries{Name: "final loss", Panel: 0, Y: h.EpochLoss})
	}
	if *plotFile != "" {
		if err := gmntrain.PlotCurves(*plotFile, curves); err != nil {
			return err
		}
	}
	return nil
}

func writeOutOfFold(path string, scores map[string]float64) error {
	ids := make([]string, 0, len(scores))
	for id := range scores {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var b strings.Builder
	for _, id := range ids {
		line, err := json.Marshal(struct {
			ID    string  `json:"id"`
			Score float64 `json:"score"`
		}{id, scores[id]})
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
