// Package shareddata finds the project's shared material (../shared from
// the repository root: the Spider pairs and databases, the prover suites,
// the curated cases) for tests, wherever the test's package sits.
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
			return filepath.Join(filepath.Dir(d), "shared"), nil
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
		t.Fatalf("shared material missing (the tests need ../shared beside the repository, or %s): %v", EnvDir, err)
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
