//go:build !(linux || darwin)

package equivalence_test

import "testing"

// limitChildMemory is a no-op where RLIMIT_AS is not available.
func limitChildMemory(*testing.T, uint64) {}
