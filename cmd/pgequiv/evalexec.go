package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/pgequiv/pgequiv/cmd/pgequiv/internal/progress"
	"github.com/pgequiv/pgequiv/eval/spidereval"
)

// executeItems is eval --execute: the official execution accuracy of
// every item, set on its result beside the verdict.
func executeItems(ctx context.Context, items []spidereval.Item, results []spidereval.Result, f evalFilesFlags, preset string, workers int, stderr io.Writer) error {
	keep := keepDistinct(preset)
	bar := progress.New(stderr, "executing", len(items))
	execs, err := spidereval.Execute(ctx, items, spidereval.ExecOptions{DBDir: f.dbDir, Timeout: f.execTimeout, KeepDistinct: keep, Workers: workers})
	bar.Add(len(items))
	bar.Finish()
	if err != nil {
		return fmt.Errorf("eval: --execute: %w", err)
	}
	spidereval.AttachExecution(results, execs)
	return nil
}

// keepDistinct: the test-suite preset is the official metric's default,
// which removes DISTINCT; without it, DISTINCT is kept (the official
// --keep_distinct), as the judge reads SQL semantics.
func keepDistinct(preset string) bool { return preset != spidereval.PresetTestSuite }

// execLine is the summary's header line of --execute.
func execLine(preset string, timeout time.Duration) string {
	d := "DISTINCT kept (official --keep_distinct)"
	if !keepDistinct(preset) {
		d = "DISTINCT removed (the official default)"
	}
	return fmt.Sprintf("execute: test-suite-sql-eval's result_eq (column permutations, rows in order only when the gold says ORDER BY), postprocess, %s, no value plug-in, %s per query; databases opened read-only", d, timeout)
}
