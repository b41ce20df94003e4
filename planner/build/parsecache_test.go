package build

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"

	"github.com/pgequiv/pgequiv/internal/shareddata"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestBuildLeavesParseTreeAlone builds every query of the shared Spider
// pairs and two prover suites from a parse tree placed in the parse
// cache, and checks that the tree is unchanged afterwards: the cache
// hands one tree to every build of the same text, concurrent ones
// included, which is sound only while the builder never writes a tree.
func TestBuildLeavesParseTreeAlone(t *testing.T) {
	shared := shareddata.Path(t, "data")
	files := []struct{ pairs, schemas string }{
		{filepath.Join(shared, "spider_pair_dev.jsonl"), filepath.Join(shared, "schemas")},
		{filepath.Join(shared, "provers", "cockroach.jsonl"), filepath.Join(shared, "provers", "schemas")},
		{filepath.Join(shared, "provers", "spark.jsonl"), filepath.Join(shared, "provers", "schemas")},
	}
	built := 0
	for _, f := range files {
		fh, err := os.Open(f.pairs)
		if err != nil {
			t.Fatalf("shared data missing: %v", err)
		}
		schemas := map[string]*catalog.Schema{}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var p struct{ DB, Dialect, Reference, Candidate string }
			if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
				t.Fatalf("%s: %v", f.pairs, err)
			}
			d, err := catalog.ParseDialect(p.Dialect)
			if err != nil {
				t.Fatalf("%s: %v", f.pairs, err)
			}
			s := schemas[p.DB]
			if s == nil {
				ddl, err := os.ReadFile(filepath.Join(f.schemas, p.DB+".sql"))
				if err != nil {
					t.Fatal(err)
				}
				if s, err = catalog.LoadDDL(string(ddl), d); err != nil {
					t.Fatalf("%s: %v", p.DB, err)
				}
				schemas[p.DB] = s
			}
			for _, q := range []string{p.Reference, p.Candidate} {
				text := q
				if d == catalog.SQLite {
					toks := lexSQL(q)
					if sqliteRejects(q, toks) != nil {
						continue
					}
					text, _ = rewriteSQLiteTokens(q, toks)
				}
				if len(text) > parseCacheMaxText {
					continue
				}
				tree, err := pg.Parse(text)
				if err != nil {
					continue
				}
				before := proto.Clone(tree)
				parseCache.Add(text, tree) // the build below reads this very tree
				if _, err := BuildContext(context.Background(), s, q, Options{}); err == nil {
					built++
				}
				if !proto.Equal(before, tree) {
					t.Fatalf("building %q changed its parse tree", q)
				}
			}
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	if built < 3000 {
		t.Fatalf("only %d queries built; the check covers too little", built)
	}
}
