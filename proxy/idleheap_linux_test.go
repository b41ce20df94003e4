//go:build linux

package proxy

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"os"
	"runtime"
	"runtime/pprof"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/protocol"
	"github.com/pgequiv/pgequiv/proxy/internal/proxytest"
)

var idleHeapProfile = flag.String("idleheapprofile", "",
	"BenchmarkIdleConnHeap: write a heap profile, taken while the connections idle, to this file")

// BenchmarkIdleConnHeap reports the Go heap (live after a collection) and
// the goroutine stacks the proxy keeps per idle connection on the fast
// relay, 500 connections at a time (issue 24 item 4 measures the RSS of a
// whole process: scripts/bench-idle-rss.sh):
//
//	go test -run '^$' -bench IdleConnHeap -benchtime 1x ./proxy
//
// With -memprofilerate 1 -idleheapprofile FILE it also writes a heap
// profile of the idle connections (go tool pprof -sample_index
// inuse_space). The clients keep only raw descriptors, so the test
// process's own heap does not grow with them.
func BenchmarkIdleConnHeap(b *testing.B) {
	const n = 500
	p := startProxy(b, upstreamOpts())
	addr := net.JoinHostPort(p.Host, fmt.Sprint(p.Port))
	var heap, stack float64
	for b.Loop() {
		before := memAfterGC()
		fds := make([]int, 0, n)
		for range n {
			fd, err := idleClient(addr)
			if err != nil {
				b.Fatal(err)
			}
			fds = append(fds, fd)
		}
		waitParked(b, p)
		after := memAfterGC()
		heap += float64(after.HeapAlloc-before.HeapAlloc) / n
		stack += (float64(after.StackInuse) - float64(before.StackInuse)) / n
		if *idleHeapProfile != "" {
			writeHeapProfile(b, *idleHeapProfile)
		}
		for _, fd := range fds {
			syscall.Close(fd)
		}
		for range n {
			p.waitConnEnd(b, testCtx(b, time.Minute))
		}
	}
	b.ReportMetric(heap/float64(b.N), "heap-B/conn")
	b.ReportMetric(stack/float64(b.N), "stack-B/conn")
}

// memAfterGC returns the memory statistics after a full collection (two:
// the first only moves sync.Pool contents to their victim caches).
func memAfterGC() runtime.MemStats {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m
}

// waitParked waits until no connection has a goroutine, that is until
// every one is parked on the fast relay.
func waitParked(b *testing.B, p *testProxy) {
	b.Helper()
	ctx := testCtx(b, time.Minute)
	for len(proxytestConnGoroutines()) > 0 {
		if ctx.Err() != nil {
			b.Fatalf("connections still have goroutines: %v", proxytestConnGoroutines())
		}
		runtime.Gosched()
	}
	if p.relay.goroutine.Load() > 0 || p.relay.demoted.Load() > 0 {
		b.Fatal("a connection is on the goroutine relay")
	}
}

func proxytestConnGoroutines() []string { return proxytest.Goroutines("pgequiv/proxy.(*conn)") }

// idleClient logs in to addr as the superuser (trust) and returns the
// connection's socket as a bare descriptor: no Go object stays behind.
func idleClient(addr string) (int, error) {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		return -1, err
	}
	defer nc.Close()
	startup, err := (&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters: map[string]string{"user": pgtest.SuperUser, "database": "postgres"}}).Encode(nil)
	if err != nil {
		return -1, err
	}
	if _, err := nc.Write(startup); err != nil {
		return -1, err
	}
	r := protocol.NewReader(bufio.NewReader(nc), 4096, 0)
	for {
		frame, err := r.Next()
		if err != nil {
			return -1, err
		}
		if frame[0] == protocol.TypeErrorResponse {
			return -1, fmt.Errorf("login refused: %q", frame)
		}
		if frame[0] == protocol.TypeReadyForQuery {
			break
		}
	}
	raw, err := nc.(*net.TCPConn).SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	if err := raw.Control(func(s uintptr) { fd, err = syscall.Dup(int(s)) }); err != nil {
		return -1, err
	}
	return fd, err
}

func writeHeapProfile(b *testing.B, path string) {
	b.Helper()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}
