//go:build linux || darwin

package equivalence_test

import (
	"os"
	"runtime"
	"syscall"
	"testing"
)

// limitChildMemory caps the address space of the blowup child process.
func limitChildMemory(t *testing.T, bytes uint64) {
	lim := syscall.Rlimit{Cur: bytes, Max: bytes}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
		t.Logf("no address-space limit: %v", err)
	}
}

// peakRSS returns the child's peak resident memory in bytes (ru_maxrss is
// in kilobytes on Linux, bytes on Darwin).
func peakRSS(ps *os.ProcessState) (int64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	if runtime.GOOS == "darwin" {
		return ru.Maxrss, true
	}
	return ru.Maxrss << 10, true
}
