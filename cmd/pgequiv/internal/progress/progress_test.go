package progress

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

const clear = "\r\x1b[K"

func TestBarDraws(t *testing.T) {
	var buf bytes.Buffer
	b := newBar(&buf, "eval", 4)
	b.Add(1)
	want := clear + "eval [#######.......................] 1/4  25%"
	if got := buf.String(); got != want {
		t.Fatalf("after Add(1):\n got %q\nwant %q", got, want)
	}
	buf.Reset()
	b.Add(0)
	if buf.Len() != 0 {
		t.Errorf("Add(0) redrew an unchanged bar: %q", buf.String())
	}
	b.Add(3)
	b.Finish()
	want = clear + "eval [##############################] 4/4 100%" + clear + "eval [##############################] 4/4 100%\n"
	if got := buf.String(); got != want {
		t.Errorf("after Finish:\n got %q\nwant %q", got, want)
	}
}

func TestBarOverflowAndUnknownTotal(t *testing.T) {
	tests := []struct {
		name  string
		label string
		total int
		add   int
		want  string
	}{
		{"past total", "x", 2, 5, clear + "x [##############################] 5/2 100%"},
		{"unknown total", "pairs", 0, 7, clear + "pairs 7"},
		{"no label", "", 0, 3, clear + "3"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		newBar(&buf, tt.label, tt.total).Add(tt.add)
		if got := buf.String(); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestBarIsNoOpOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	b := New(&buf, "eval", 10)
	b.Add(5)
	b.Finish()
	if buf.Len() != 0 {
		t.Errorf("bar on a bytes.Buffer wrote %q", buf.String())
	}
	var nilBar *Bar
	nilBar.Add(1) // must not panic
	nilBar.Finish()
}

func TestIsTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	regular, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer regular.Close()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	var nilFile *os.File
	tests := []struct {
		name string
		w    io.Writer
	}{
		{"buffer", &bytes.Buffer{}},
		{"pipe", w},
		{"regular file", regular},
		{"null device", null},
		{"nil file", nilFile},
	}
	for _, tt := range tests {
		if IsTerminal(tt.w) {
			t.Errorf("IsTerminal(%s) = true, want false", tt.name)
		}
	}
}

// TestIsTerminalPTY opens a pseudo-terminal master, the nearest thing to a
// terminal a test can make without a terminal package.
func TestIsTerminalPTY(t *testing.T) {
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer pty.Close()
	if !IsTerminal(pty) {
		t.Error("IsTerminal(/dev/ptmx) = false, want true")
	}
}

func TestBarConcurrentAdds(t *testing.T) {
	var buf bytes.Buffer
	b := newBar(&buf, "", 800)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				b.Add(1)
			}
		})
	}
	wg.Wait()
	if got := buf.String(); !strings.HasSuffix(got, "] 800/800 100%") {
		t.Errorf("final draw is %q", got[strings.LastIndex(got, "\r"):])
	}
}
