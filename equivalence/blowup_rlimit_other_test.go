//go:build !(linux || darwin)

package equivalence_test

import (
	"os"
	"testing"
)

// limitChildMemory is a no-op where RLIMIT_AS is not available.
func limitChildMemory(*testing.T, uint64) {}

// peakRSS is unknown where rusage is not available.
func peakRSS(*os.ProcessState) (int64, bool) { return 0, false }
