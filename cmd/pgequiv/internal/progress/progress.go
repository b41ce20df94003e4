// Package progress draws a one-line progress bar for long evaluation runs,
// on a terminal only, so that redirected output and CI logs stay clean.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// width is the number of cells in the bar itself.
const width = 30

// Bar is a progress bar counting up to a total. It is safe for concurrent
// use. When its writer is not a terminal every method is a no-op. Write
// errors are ignored: progress is cosmetic and must not fail a run.
type Bar struct {
	mu    sync.Mutex
	w     io.Writer // nil when disabled
	label string
	total int
	done  int
	drawn int // permille last drawn, -1 before the first draw
}

// New returns a bar labelled label counting to total, drawn on w if w is a
// terminal. A total of 0 or less shows the count without a bar.
func New(w io.Writer, label string, total int) *Bar {
	if !IsTerminal(w) {
		w = nil
	}
	return newBar(w, label, total)
}

func newBar(w io.Writer, label string, total int) *Bar {
	return &Bar{w: w, label: label, total: total, drawn: -1}
}

// Add records n more items done and redraws the bar if its display changed.
func (b *Bar) Add(n int) {
	if b == nil || b.w == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done += n
	// Redraw at most once per permille, so that a run of thousands of
	// fast items does not spend its time writing to the terminal.
	if p := b.permille(); p != b.drawn || b.total <= 0 {
		b.draw(p)
	}
}

// Finish draws the final state and ends the line. Later calls to Add draw a
// new line.
func (b *Bar) Finish() {
	if b == nil || b.w == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.draw(b.permille())
	io.WriteString(b.w, "\n")
	b.drawn = -1
}

func (b *Bar) permille() int {
	if b.total <= 0 {
		return 0
	}
	return min(1000, max(0, b.done*1000/b.total))
}

func (b *Bar) draw(p int) {
	b.drawn = p
	var s strings.Builder
	// \r returns to the start of the line; \x1b[K clears what a longer
	// previous line left behind.
	s.WriteString("\r\x1b[K")
	if b.label != "" {
		s.WriteString(b.label)
		s.WriteByte(' ')
	}
	if b.total > 0 {
		filled := p * width / 1000
		s.WriteByte('[')
		s.WriteString(strings.Repeat("#", filled))
		s.WriteString(strings.Repeat(".", width-filled))
		fmt.Fprintf(&s, "] %d/%d %3d%%", b.done, b.total, p/10)
	} else {
		fmt.Fprintf(&s, "%d", b.done)
	}
	io.WriteString(b.w, s.String())
}

// IsTerminal reports whether w is a character device other than the null
// device, which is how a terminal looks without a terminal-control package.
// Other character devices (/dev/zero) also pass, harmlessly.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return false
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	// /dev/null is a character device: output sent there is discarded, and
	// tools commonly redirect to it.
	if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(fi, null) {
		return false
	}
	return true
}
