package judgepool_test

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy/judgepool"
)

// envHost makes the test binary a stand-in for the proxy: it starts a pool,
// prints its workers' pids and waits to be killed.
const envHost = "PGEQUIV_JUDGEPOOL_TEST_HOST"

func runHost() int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	p, err := judgepool.New(judgepool.Options{Workers: 2, Command: []string{exe}, Env: []string{envWorker + "=1", envHost + "=0"}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for _, pid := range judgepool.WorkerPIDs(p) {
		fmt.Println(pid)
	}
	// One worker is mid-judgement, ignoring its deadline: it does not read
	// its input, so only the death signal can end it in time.
	s, err := catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	go judge(p, s, "SELECT 1 /* "+markHang+" */", time.Hour)
	for judgepool.Busy(p) == 0 {
		runtime.Gosched()
	}
	fmt.Println("ready")
	select {}
}

// TestWorkersDieWithProxy: a proxy killed outright (SIGKILL, no shutdown)
// leaves no judge worker behind, not even one busy judging.
func TestWorkersDieWithProxy(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	host := exec.Command(exe, "-test.run=^$")
	host.Env = append(os.Environ(), envHost+"=1")
	out, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	sc := bufio.NewScanner(out)
	for sc.Scan() && sc.Text() != "ready" {
		pid, err := strconv.Atoi(sc.Text())
		if err != nil {
			t.Fatalf("host said %q", sc.Text())
		}
		pids = append(pids, pid)
	}
	if len(pids) != 2 {
		host.Process.Kill()
		t.Fatalf("host reported workers %v", pids)
	}
	if err := host.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	host.Wait()
	for _, pid := range pids {
		// The kernel delivers the death signal as the host exits; a
		// worker is gone once it is reaped or a zombie.
		deadline := time.Now().Add(10 * time.Second)
		for alive(pid) {
			if time.Now().After(deadline) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("worker %d outlived the killed proxy by 10s", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// alive reports whether pid runs (exists and is not a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
