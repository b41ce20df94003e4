// Package shareddata finds the project's shared material (testdata/shared
// in the repository: the Spider pairs and databases, the prover suites,
// the curated cases; sources and licences in its README) for tests,
// wherever the test's package sits. The tree is in the repository so that a
// fresh clone needs nothing beside it; PGEQUIV_SHARED may point elsewhere
// (a folder with the same data/ and equivalence/ layout, such as a newer
// corpus).
//
// A test that needs it fails when it is missing, with the path it looked
// for: a skip would turn the main suites off without anyone noticing.
package shareddata

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// EnvDir overrides where the shared material is (the directory that holds
// data/ and equivalence/).
const EnvDir = "PGEQUIV_SHARED"

// InRepo is the shared material's directory relative to the repository
// root (slash-separated).
const InRepo = "testdata/shared"

var root = sync.OnceValues(func() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		return d, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, filepath.FromSlash(InRepo)), nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("no go.mod above " + wd)
		}
	}
})

// Path returns the shared file or directory at rel (slash-separated,
// relative to the shared root, such as "data/schemas"); it fails t when
// that does not exist.
func Path(t testing.TB, rel string) string {
	t.Helper()
	p, err := Lookup(rel)
	if err != nil {
		t.Fatalf("shared material missing (the tests read %s in the repository, or %s when set): %v", InRepo, EnvDir, err)
	}
	return p
}

// Lookup is Path for code that is not a test: the path, or an error
// naming what is missing.
func Lookup(rel string) (string, error) {
	r, err := root()
	if err != nil {
		return "", fmt.Errorf("finding the shared material: %w", err)
	}
	p := filepath.Join(r, filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		return "", err
	}
	return p, nil
}
