// Command pgequiv is a PostgreSQL wire-protocol proxy that judges whether a
// query means the same as a reference query, using only the schema.
//
// Usage:
//
//	pgequiv plan [flags] SQL          print the normalized plan of a query
//	pgequiv plan --dataset FILE.jsonl plan every query of a labelled dataset
//	pgequiv train [--cv 5] [--out W]  train the graph matching network
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/pgequiv/pgequiv/proxy/judgepool"
)

// exitError carries a process exit code through the subcommand.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

var commands = map[string]func(ctx context.Context, args []string, stdout, stderr io.Writer) error{
	"plan":  runPlan,
	"check": runCheck,
	"cases": runCases,
	"eval":  runEval,
	"serve": func(ctx context.Context, args []string, _, _ io.Writer) error { return runServe(ctx, args) },
	"train": runTrain,
	// judge-worker is hidden: serve runs its own binary with it for each
	// judge worker process (see proxy/judgepool).
	"judge-worker": func(context.Context, []string, io.Writer, io.Writer) error { return judgepool.RunWorker(nil) },
}

func usage(w io.Writer) {
	fmt.Fprintln(w, `usage: pgequiv <command> [flags]

commands:
  plan    print the normalized logical plan of a query, or plan a dataset
  check   judge whether a candidate query is equivalent to a reference
  cases   run a curated case file (../shared/equivalence/cases.yaml format)
  eval    judge a labelled dataset (JSONL) and report AUC, precision, recall
  serve   run the PostgreSQL wire-protocol proxy (pgequiv serve --config proxy.yaml)
  train   train and cross-validate the graph matching network

Run 'pgequiv <command> -h' for the flags of a command.`)
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "pgequiv: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := cmd(ctx, args[1:], stdout, stderr); err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			return ee.code
		}
		fmt.Fprintf(stderr, "pgequiv %s: %v\n", args[0], err)
		return 2
	}
	return 0
}
