package shareddata_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pgequiv/pgequiv/internal/shareddata"
)

func TestPath(t *testing.T) {
	p := shareddata.Path(t, "data/spider_pair_dev.jsonl")
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	if _, err := shareddata.Lookup("data/no-such-file"); err == nil {
		t.Error("Lookup of a missing file: no error")
	}
	if got, want := filepath.Base(filepath.Dir(filepath.Dir(p))), "shared"; got != want {
		t.Errorf("root %s, want a directory named %s", p, want)
	}
}
