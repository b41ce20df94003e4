package connset

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"
)

func TestShutdownDrainsThenAborts(t *testing.T) {
	ended := make(chan int, 4)
	var s *Set[int]
	s = New(func(c int) { ended <- c; s.Done(c) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if !s.AddListener(ln) {
		t.Fatal("AddListener refused before stopping")
	}
	if !s.Add(1) || !s.Add(2) || s.Len() != 2 {
		t.Fatalf("Add: len %d", s.Len())
	}
	s.Done(1) // ends on its own
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := s.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown = %v, want DeadlineExceeded", err)
	}
	if got := <-ended; got != 2 || s.Len() != 0 {
		t.Fatalf("aborted %d, len %d; want 2, 0", got, s.Len())
	}
	if _, err := ln.Accept(); err == nil {
		t.Fatal("listener still open after Shutdown")
	}
	if s.Add(3) || !s.Closing() {
		t.Fatal("Add accepted a connection after Shutdown")
	}
	ln2, _ := net.Listen("tcp", "127.0.0.1:0")
	if s.AddListener(ln2) {
		t.Fatal("AddListener accepted a listener after Shutdown")
	}
	if _, err := ln2.Accept(); err == nil {
		t.Fatal("refused listener was not closed")
	}
}

func TestShutdownWithoutConnections(t *testing.T) {
	s := New(func(int) { t.Fatal("abort called with no connections") })
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown = %v", err)
	}
	s.Close()
}
