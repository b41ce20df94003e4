package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/pgequiv/pgequiv/eval/evaluation"
	"github.com/pgequiv/pgequiv/eval/spidereval"
	"github.com/pgequiv/pgequiv/internal/dataset"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/catalog/tablesjson"
)

// datasetSchemas is where eval's DATASET.jsonl mode reads schemas: the
// flattened <db>.sql files of --schemas (default: schemas/ beside the
// dataset), or, with --db-dir or --tables, the real databases' DDL and
// tables.json, falling back to --schemas only when it was given.
func datasetSchemas(schemasDir, dataFile string, files evalFilesFlags) (evaluation.SchemaSource, error) {
	if files.dbDir == "" && files.tables == "" {
		if schemasDir == "" {
			schemasDir = filepath.Join(filepath.Dir(dataFile), "schemas")
		}
		return &evaluation.Schemas{Dir: schemasDir}, nil
	}
	sp := &spidereval.Schemas{DBDir: files.dbDir}
	if files.dbDir != "" {
		if st, err := os.Stat(files.dbDir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("eval: --db-dir %s is not a directory", files.dbDir)
		}
	}
	if files.tables != "" {
		t, err := tablesjson.Read(files.tables)
		if err != nil {
			return nil, fmt.Errorf("eval: --tables: %w", err)
		}
		sp.Tables = t
	}
	if schemasDir != "" {
		sp.Fallback = &evaluation.Schemas{Dir: schemasDir}
	}
	return sp, nil
}

// skipSchemaless drops the pairs of databases that no schema source has
// (the shared Spider pairs' wta_1 has no file under spider_db/) and says
// so on w; any other schema error, a DDL that does not load, is fatal, as
// in Run.
func skipSchemaless(pairs []dataset.Pair, schemas evaluation.SchemaSource, w io.Writer) ([]dataset.Pair, error) {
	if _, ok := schemas.(*spidereval.Schemas); !ok {
		return pairs, nil
	}
	missing := map[string]int{}
	kept := pairs[:0:0]
	checked := map[string]bool{}
	for _, p := range pairs {
		d, err := catalog.ParseDialect(p.Dialect)
		if err == nil && !checked[p.DB+"/"+p.Dialect] {
			checked[p.DB+"/"+p.Dialect] = true
			if _, err := schemas.Get(p.DB, d); errors.Is(err, spidereval.ErrNoSchema) {
				missing[p.DB] = 0
			} else if err != nil {
				return nil, fmt.Errorf("eval: %w", err)
			}
		}
		if _, ok := missing[p.DB]; ok {
			missing[p.DB]++
			continue
		}
		kept = append(kept, p)
	}
	if len(missing) > 0 {
		dbs := make([]string, 0, len(missing))
		for db := range missing {
			dbs = append(dbs, db)
		}
		sort.Strings(dbs)
		for _, db := range dbs {
			fmt.Fprintf(w, "skipped: %d pairs of db %s (no schema: not under --db-dir, not in --tables)\n", missing[db], db)
		}
	}
	return kept, nil
}
