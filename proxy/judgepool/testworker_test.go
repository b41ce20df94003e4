package judgepool_test

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/proxy/judgepool"
)

// envWorker makes the test binary act as a judge worker with faultHooks:
// production workers (pgequiv judge-worker) have no such triggers.
const envWorker = "PGEQUIV_JUDGEPOOL_TEST_WORKER"

func TestMain(m *testing.M) {
	if os.Getenv(envWorker) == "1" {
		if err := judgepool.RunWorker(faultHooks); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(envHost) == "1" {
		os.Exit(runHost())
	}
	os.Exit(m.Run())
}

// Markers in a candidate that make a test worker misbehave.
const (
	markFatal = "FAULT_FATAL"  // a Go fatal error: stack overflow
	markHang  = "FAULT_HANG"   // ignores its deadline
	markAlloc = "FAULT_ALLOC"  // grows without bound
	markPanic = "FAULT_PANIC"  // an ordinary panic
	markExit  = "FAULT_EXIT_1" // exits, as if killed from outside
)

var faultHooks = &judgepool.WorkerHooks{BeforeJudge: func(_, candidate string) {
	switch {
	case strings.Contains(candidate, markFatal):
		debug.SetMaxStack(1 << 20)
		recurse(0)
	case strings.Contains(candidate, markHang):
		for start := time.Now(); time.Since(start) < time.Hour; {
		}
	case strings.Contains(candidate, markAlloc):
		var keep [][]byte
		for range 1 << 10 {
			b := make([]byte, 8<<20)
			for i := 0; i < len(b); i += 4096 {
				b[i] = 1 // touch each page so that it is resident
			}
			keep = append(keep, b)
		}
		select {}
	case strings.Contains(candidate, markPanic):
		panic("test panic")
	case strings.Contains(candidate, markExit):
		os.Exit(1)
	}
}}

// recurse overflows the stack: "fatal error: stack overflow", which
// recover cannot catch.
func recurse(n int) int {
	var pad [256]byte
	pad[n%256] = byte(n)
	return recurse(n+1) + int(pad[(n+1)%256])
}

// testCommand runs this test binary as a worker.
func testCommand(t testing.TB) ([]string, []string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe}, []string{envWorker + "=1"}
}
