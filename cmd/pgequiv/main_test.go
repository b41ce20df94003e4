package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestMain lets the test binary act as a judge worker, as the pgequiv
// binary does: serve (judge_isolation: process, the default) runs its own
// executable with "judge-worker".
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "judge-worker" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// childWorkers returns the pids of this process's children that run
// "judge-worker" (Linux /proc; nil elsewhere).
func childWorkers(t *testing.T) []int {
	t.Helper()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var pids []int
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue // ended meanwhile
		}
		// pid (comm) state ppid ...
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) < 2 || string(f[1]) != strconv.Itoa(os.Getpid()) {
			continue
		}
		dir := filepath.Dir(st)
		cmdline, _ := os.ReadFile(dir + "/cmdline")
		if bytes.Contains(cmdline, []byte("judge-worker")) {
			pid, _ := strconv.Atoi(filepath.Base(dir))
			pids = append(pids, pid)
		}
	}
	return pids
}
