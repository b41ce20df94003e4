// Command pgequiv is a PostgreSQL wire-protocol proxy that judges whether a
// query means the same as a reference query, using only the schema.
//
// Usage:
//
//	pgequiv plan [flags] SQL          print the normalized plan of a query
//	pgequiv plan --dataset FILE.jsonl plan every query of a labelled dataset
//	pgequiv train [--cv 5] [--out W]  train the graph matching network
//	pgequiv version                   print the version (also --version)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/pgequiv/pgequiv/internal/buildinfo"
	"github.com/pgequiv/pgequiv/proxy/judgepool"
)

// exitError carries a process exit code through the subcommand.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

var commands = map[string]func(ctx context.Context, args []string, stdout, stderr io.Writer) error{
	"plan":   runPlan,
	"check":  runCheck,
	"cases":  runCases,
	"eval":   runEval,
	"select": runSelect,
	"serve": func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		return runServe(ctx, args, stdout, stderr)
	},
	"train":   runTrain,
	"version": runVersion,
	// judge-worker is hidden: serve runs its own binary with it for each
	// judge worker process (see proxy/judgepool).
	"judge-worker": func(context.Context, []string, io.Writer, io.Writer) error { return judgepool.RunWorker(nil) },
}

func usage(w io.Writer) {
	fmt.Fprintln(w, `usage: pgequiv <command> [flags]

commands:
  plan    print the normalized logical plan of a query, or plan a dataset
  check   judge whether a candidate query is equivalent to a reference
  cases   run a curated case file (testdata/shared/equivalence/cases.yaml format)
  eval    judge a labelled dataset (JSONL) and report AUC, precision, recall
  select  pick the best of several candidate queries per question, without a database
  serve   run the PostgreSQL wire-protocol proxy (pgequiv serve --config proxy.yaml)
  train   train and cross-validate the graph matching network
  version print the version, its VCS revision and the Go version

Run 'pgequiv <command> -h' for the flags of a command.`)
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		// Asked for, usage is the output, not a complaint.
		usage(stdout)
		return 0
	case "-version", "--version":
		printVersion(stdout)
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
	if args[0] != "judge-worker" && helpRequested(args[1:]) {
		// Each command prints its usage to its error writer when its flags
		// do not parse; -h alone makes them print it and nothing else.
		_ = cmd(ctx, []string{"-h"}, stdout, stdout)
		return 0
	}
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

// helpRequested reports whether a command's flags ask for help (-h,
// -help or --help before a "--").
func helpRequested(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// runVersion is `pgequiv version`: it takes no arguments, and -h prints
// its usage like every other command's (it used to print the version).
func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: pgequiv version

Prints the module version, the VCS revision and commit time the binary was
built from (go build records them in a git checkout, unless -buildvcs=false)
and the Go version. pgequiv --version prints the same.`)
	}
	if err := fs.Parse(args); err != nil {
		return exitError{2}
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "pgequiv version: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return exitError{2}
	}
	printVersion(stdout)
	return nil
}

// printVersion prints the module version, the VCS revision and time the
// binary was built from (when the build recorded them) and the Go version.
func printVersion(w io.Writer) {
	bi, _ := debug.ReadBuildInfo()
	writeVersion(w, bi)
}

// writeVersion prints what bi (nil: no build information) records.
func writeVersion(w io.Writer, bi *debug.BuildInfo) {
	io.WriteString(w, buildinfo.From(bi).Lines())
}
