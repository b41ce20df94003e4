package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pgequiv/pgequiv/internal/dataset"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

func runPlan(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	schemaFile := fs.String("schema", "", "PostgreSQL DDL file (default: the bundled example schema)")
	dialectName := fs.String("dialect", "postgres", "SQL dialect of the query: postgres or sqlite")
	format := fs.String("format", "text", "output format: text or json")
	schemasDir := fs.String("schemas", "", "directory of <db>.sql schemas, with --dataset")
	datasetFile := fs.String("dataset", "", "plan every reference and candidate of a JSONL dataset")
	raw := fs.Bool("raw", false, "print the plan before normalization")
	if err := fs.Parse(args); err != nil {
		return exitError{2}
	}
	if *datasetFile != "" {
		return planDataset(ctx, *schemasDir, *datasetFile, stdout)
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("want exactly one SQL argument, got %d", fs.NArg())
	}
	d, err := catalog.ParseDialect(*dialectName)
	if err != nil {
		return err
	}
	ddl := catalog.ExampleDDL()
	if *schemaFile != "" {
		b, err := os.ReadFile(*schemaFile)
		if err != nil {
			return err
		}
		ddl = string(b)
	}
	s, err := catalog.LoadDDL(ddl, d)
	if err != nil {
		return err
	}
	p, err := planner.Plan(ctx, s, fs.Arg(0), planner.Options{SkipNormalize: *raw})
	if err != nil {
		return err
	}
	switch *format {
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{
			"fingerprint": p.Fingerprint(), "schema_fingerprint": s.Fingerprint(), "ordered": p.Ordered,
			"output": orEmpty(p.Names), "rules": orEmpty(p.Rules), "plan": p.JSONTree(),
		})
	case "text":
		fmt.Fprintln(stdout, p.Explain())
		fmt.Fprintf(stdout, "fingerprint: %s\n", p.Fingerprint())
		if len(p.Rules) > 0 {
			fmt.Fprintf(stdout, "rules: %s\n", strings.Join(p.Rules, ", "))
		}
		return nil
	}
	return fmt.Errorf("unknown --format %q (want text or json)", *format)
}

func planDataset(ctx context.Context, dir, file string, stdout io.Writer) error {
	if dir == "" {
		dir = filepath.Join(filepath.Dir(file), "schemas")
	}
	pairs, err := dataset.ReadPairsFile(file)
	if err != nil {
		return err
	}
	schemas := map[string]*catalog.Schema{}
	ok, total := 0, 0
	for _, pr := range pairs {
		d, err := catalog.ParseDialect(pr.Dialect)
		if err != nil {
			return fmt.Errorf("%s line %d: %w", file, pr.Line, err)
		}
		key := pr.DB + "/" + d.String()
		s := schemas[key]
		if s == nil {
			ddl, err := os.ReadFile(filepath.Join(dir, pr.DB+".sql"))
			if err != nil {
				return fmt.Errorf("%s line %d: schema for db %q: %w", file, pr.Line, pr.DB, err)
			}
			if s, err = catalog.LoadDDL(string(ddl), d); err != nil {
				return fmt.Errorf("schema %s: %w", pr.DB, err)
			}
			schemas[key] = s
		}
		for _, q := range []struct{ role, sql string }{{"reference", pr.Reference}, {"candidate", pr.Candidate}} {
			total++
			if _, err := planner.Plan(ctx, s, q.sql, planner.Options{}); err != nil {
				fmt.Fprintf(stdout, "FAIL %s %s (db %s): %v\n    %s\n", pr.ID, q.role, pr.DB, err, oneLine(q.sql))
				continue
			}
			ok++
		}
	}
	pct := 0.0
	if total > 0 {
		pct = 100 * float64(ok) / float64(total)
	}
	fmt.Fprintf(stdout, "planned %d/%d queries (%.2f%%)\n", ok, total, pct)
	return nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
