// Package soundness holds what the soundness net's tests share: the
// shared corpora (curated cases, prover suites, Spider pairs) with their
// schemas, and the instance count. The net itself lives in tests next to
// the code it checks (planner, planner/norm, equivalence); it runs every
// rewrite the judge relies on through the plan executor on generated
// databases, where any difference is a bug in a rule or the executor.
package soundness

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pgequiv/pgequiv/internal/dataset"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// Pair is one pair of queries of a corpus.
type Pair struct {
	Corpus, ID string
	Schema     *catalog.Schema
	Reference  string
	Candidate  string
	// Policy holds a curated case's judge options, as written.
	Policy map[string]string
}

// Query is one distinct query of the corpora, with its schema.
type Query struct {
	Corpus, ID string // the first pair it appears in
	Schema     *catalog.Schema
	SQL        string
}

// proverSuites are the files of data/provers under the shared root.
var proverSuites = []string{"spark", "tpcc", "tpch", "spark_no_order_by", "tpcc_no_order_by", "tpch_no_order_by", "cockroach"}

// Load reads the corpora under shared (testdata/shared, or PGEQUIV_SHARED): the
// curated cases (postgres), the prover suites (postgres) and the Spider
// dev pairs (sqlite). A pair whose schema does not load is an error.
func Load(shared string) ([]Pair, error) {
	var pairs []Pair
	cf, err := dataset.ReadCasesFile(filepath.Join(shared, "equivalence", "cases.yaml"))
	if err != nil {
		return nil, err
	}
	s, err := catalog.LoadDDL(cf.Schema, catalog.Postgres)
	if err != nil {
		return nil, fmt.Errorf("cases schema: %w", err)
	}
	for _, c := range cf.Cases {
		pairs = append(pairs, Pair{Corpus: "cases", ID: c.ID, Schema: s, Reference: c.Reference, Candidate: c.Candidate, Policy: c.Policy})
	}
	schemas := map[string]*catalog.Schema{}
	schema := func(dir, db string, d catalog.Dialect) (*catalog.Schema, error) {
		key := dir + "/" + db
		if s, ok := schemas[key]; ok {
			return s, nil
		}
		ddl, err := os.ReadFile(filepath.Join(dir, db+".sql"))
		if err != nil {
			return nil, err
		}
		s, err := catalog.LoadDDL(string(ddl), d)
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", db, err)
		}
		schemas[key] = s
		return s, nil
	}
	add := func(corpus, file, schemaDir string, d catalog.Dialect) error {
		ps, err := dataset.ReadPairsFile(file)
		if err != nil {
			return err
		}
		for _, p := range ps {
			s, err := schema(schemaDir, p.DB, d)
			if err != nil {
				return fmt.Errorf("%s %s: %w", corpus, p.ID, err)
			}
			pairs = append(pairs, Pair{Corpus: corpus, ID: p.ID, Schema: s, Reference: p.Reference, Candidate: p.Candidate})
		}
		return nil
	}
	provers := filepath.Join(shared, "data", "provers")
	for _, suite := range proverSuites {
		if err := add("provers/"+suite, filepath.Join(provers, suite+".jsonl"), filepath.Join(provers, "schemas"), catalog.Postgres); err != nil {
			return nil, err
		}
	}
	if err := add("spider", filepath.Join(shared, "data", "spider_pair_dev.jsonl"), filepath.Join(shared, "data", "schemas"), catalog.SQLite); err != nil {
		return nil, err
	}
	return pairs, nil
}

// Queries lists the distinct queries of pairs (per schema), in order.
func Queries(pairs []Pair) []Query {
	seen := map[*catalog.Schema]map[string]bool{}
	var qs []Query
	for _, p := range pairs {
		if seen[p.Schema] == nil {
			seen[p.Schema] = map[string]bool{}
		}
		for _, sql := range []string{p.Reference, p.Candidate} {
			if !seen[p.Schema][sql] {
				seen[p.Schema][sql] = true
				qs = append(qs, Query{Corpus: p.Corpus, ID: p.ID, Schema: p.Schema, SQL: sql})
			}
		}
	}
	return qs
}

// Instances is the number of databases each check tries: def in
// `go test`, or SOUNDNESS_INSTANCES when set (scripts/soundness.sh).
func Instances(def int) int {
	if v, err := strconv.Atoi(os.Getenv("SOUNDNESS_INSTANCES")); err == nil && v > 0 {
		return v
	}
	return def
}

// Long reports whether SOUNDNESS_INSTANCES asks for a long run.
func Long() bool { return os.Getenv("SOUNDNESS_INSTANCES") != "" }

// Malformed reports whether an executor's cannot-execute reason says the
// plan itself is broken (a node reads a column its input does not
// produce, an expression reads an unbound column, a row has the wrong
// width) rather than that the executor lacks a feature: the net counts
// the first kind as a bug of the rule that made the plan.
func Malformed(reason string) bool {
	for _, s := range []string{"missing from", "is not bound", "expressions for", "columns for"} {
		if strings.Contains(reason, s) {
			return true
		}
	}
	return false
}
