package shareddata_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pgequiv/pgequiv/internal/shareddata"
)

// TestPath checks that, with PGEQUIV_SHARED unset, the material is found in
// the repository itself (issue 37: a fresh clone has no ../shared), with it
// set, under that folder, and that a missing file is an error.
func TestPath(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// This package is internal/shareddata: the repository root is two up.
	want := filepath.Join(wd, "..", "..", filepath.FromSlash(shareddata.InRepo))
	if d := os.Getenv(shareddata.EnvDir); d != "" {
		want = d
	}
	for _, rel := range []string{
		".",
		"README.md",
		"data/spider_pair_dev.jsonl",
		"data/schemas/dog_kennels.sql",
		"data/spider_db/tables.json",
		"data/spider_db/dog_kennels/dog_kennels.sqlite",
		"data/provers/spark.jsonl",
		"data/provers/cockroach.jsonl",
		"data/provers/schemas/tpch.sql",
		"equivalence/cases.yaml",
	} {
		p := shareddata.Path(t, rel)
		rp, err := filepath.Rel(filepath.Clean(want), p)
		if err != nil || rp != filepath.Clean(filepath.FromSlash(rel)) {
			t.Errorf("Path(%q) = %s, want it under %s", rel, p, filepath.Clean(want))
		}
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
	if _, err := shareddata.Lookup("data/no-such-file"); err == nil {
		t.Error("Lookup of a missing file: no error")
	}
}
