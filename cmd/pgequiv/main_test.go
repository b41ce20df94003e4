package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// TestMain lets the test binary act as a judge worker, as the pgequiv
// binary does: serve (judge_isolation: process, the default) runs its own
// executable with "judge-worker".
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "judge-worker" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	// The issue 9 acceptance tests run the CLI in a child process, so
	// that a crash fails one case instead of the test binary.
	if os.Getenv(envAsCLI) == "1" {
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

// TestVersionAndHelp: --version and version print the build's version and
// Go version; -h/--help on the program or any command prints usage to
// standard output and exits 0.
func TestVersionAndHelp(t *testing.T) {
	tests := []struct {
		args []string
		want string // in standard output
	}{
		{[]string{"--version"}, "go: " + runtime.Version()},
		{[]string{"-version"}, "pgequiv "},
		{[]string{"version"}, "go: " + runtime.Version()},
		{[]string{"--help"}, "commands:"},
		{[]string{"-h"}, "commands:"},
		{[]string{"serve", "--help"}, "-config"},
		{[]string{"serve", "-h"}, "usage: pgequiv serve [--config proxy.yaml]"},
		{[]string{"check", "--help"}, "usage: pgequiv check"},
		{[]string{"check", "--json", "-h"}, "usage: pgequiv check"},
		{[]string{"plan", "-h"}, "-format"},
		{[]string{"cases", "--help"}, "usage: pgequiv cases"},
		{[]string{"eval", "-h"}, "usage: pgequiv eval"},
		{[]string{"train", "-help"}, "-epochs"},
		{[]string{"version", "--help"}, "usage: pgequiv version"},
		{[]string{"version", "-h"}, "usage: pgequiv version"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tt.args, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d, stderr %q", code, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.want) {
				t.Errorf("stdout %q lacks %q", stdout.String(), tt.want)
			}
			if stderr.Len() != 0 {
				t.Errorf("stderr %q, want nothing", stderr.String())
			}
		})
	}
	// version takes no arguments: one is a usage error, not the version.
	{
		var stdout, stderr bytes.Buffer
		if code := run([]string{"version", "extra"}, &stdout, &stderr); code != 2 || stdout.Len() != 0 ||
			!strings.Contains(stderr.String(), "usage: pgequiv version") {
			t.Errorf("version extra: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
		}
	}
	// Without a command it is still a usage error.
	var stdout, stderr bytes.Buffer
	if code := run(nil, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "commands:") {
		t.Errorf("no arguments: exit %d, stderr %q", code, stderr.String())
	}
}

func TestWriteVersion(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/pgequiv/pgequiv", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "ebf98bf"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"}}}
	var b bytes.Buffer
	writeVersion(&b, bi)
	want := "pgequiv v1.2.3\nrevision: ebf98bf (modified)\ncommit time: 2026-01-02T03:04:05Z\ngo: go1.26.0 " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	writeVersion(&b, nil)
	if !strings.HasPrefix(b.String(), "pgequiv (devel)\ngo: "+runtime.Version()) {
		t.Errorf("without build info: %q", b.String())
	}
}
