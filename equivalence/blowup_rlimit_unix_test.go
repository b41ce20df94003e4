//go:build linux || darwin

package equivalence_test

import (
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
