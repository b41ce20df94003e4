package judgepool

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// proc is one running worker process.
type proc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	enc   *encoder
	pid   int
	// resp receives each response; done is closed when the process's
	// output ends (it exited or was killed), after which readErr is set.
	resp    chan response
	done    chan struct{}
	readErr error
	// schemas are the keys this process has been sent.
	schemas map[string]bool
	waited  sync.Once
	exitErr error
}

// startTimeout bounds a worker's start, up to its hello frame.
const startTimeout = 10 * time.Second

// startProc starts a worker and waits for its hello.
func (p *Pool) startProc(idx int) (*proc, error) {
	cmd := exec.Command(p.o.Command[0], p.o.Command[1:]...)
	cmd.Env = append(os.Environ(), p.o.Env...)
	cmd.Stderr = &lineLogger{log: p.log, worker: idx}
	dieWithParent(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("judgepool: worker %d: %w", idx, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("judgepool: worker %d: %w", idx, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("judgepool: starting worker %d (%s): %w", idx, p.o.Command[0], err)
	}
	if err := lowerPriority(cmd.Process.Pid); err != nil {
		p.log.Debug("judge worker keeps the proxy's priority", "worker", idx, "err", err)
	}
	pr := &proc{cmd: cmd, stdin: stdin, enc: newEncoder(stdin), pid: cmd.Process.Pid,
		resp: make(chan response, 1), done: make(chan struct{}), schemas: map[string]bool{}}
	cmd.Stderr.(*lineLogger).pid.Store(int64(pr.pid))
	hello := make(chan error, 1)
	go pr.read(bufio.NewReaderSize(stdout, 64<<10), hello)
	err = pr.enc.send(initMsg{MemoryLimit: p.o.MemoryLimit, Judger: p.o.Judger})
	if err == nil {
		t := time.NewTimer(startTimeout)
		select {
		case err = <-hello:
		case <-t.C:
			err = errors.New("no hello in time")
		}
		t.Stop()
	}
	if err != nil {
		pr.kill()
		return nil, fmt.Errorf("judgepool: starting worker %d (pid %d): %w (exit: %v)", idx, pr.pid, err, pr.exitErr)
	}
	return pr, nil
}

// read reads the hello and then responses until the output ends.
func (pr *proc) read(r io.Reader, hello chan<- error) {
	defer close(pr.done)
	dec := newDecoder(r)
	var h helloMsg
	if err := dec.recv(&h); err != nil {
		pr.readErr = err
		hello <- err
		return
	}
	hello <- nil
	for {
		var resp response
		if err := dec.recv(&resp); err != nil {
			pr.readErr = err
			return
		}
		pr.resp <- resp // at most one request is in flight
	}
}

// exited reports whether the process's output has ended: it is dead,
// or dying.
func (pr *proc) exited() bool {
	select {
	case <-pr.done:
		return true
	default:
		return false
	}
}

// kill ends the process and reaps it.
func (pr *proc) kill() {
	_ = pr.cmd.Process.Kill()
	pr.wait()
}

// wait reaps the process once its output has ended (exec requires the
// reads to finish before Wait); it also flushes its standard error.
func (pr *proc) wait() {
	pr.waited.Do(func() {
		<-pr.done
		pr.exitErr = pr.cmd.Wait()
	})
}

// stop asks the worker to exit by closing its input, and kills it if it
// has not within grace.
func (pr *proc) stop(grace time.Duration) {
	_ = pr.stdin.Close()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-pr.done:
	case <-t.C:
		_ = pr.cmd.Process.Kill()
	}
	pr.wait()
}

// rss returns the process's resident set size in bytes; 0 where /proc is
// not available.
func (pr *proc) rss() int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pr.pid) + "/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}

// lineLogger copies a worker's standard error into the proxy's log, line
// by line, bounded per process: a fatal error's goroutine dump can be
// long.
type lineLogger struct {
	log     *slog.Logger
	worker  int
	pid     atomic.Int64 // set after the start; the copy runs concurrently
	partial []byte
	lines   int
}

const maxStderrLines = 400

func (l *lineLogger) Write(b []byte) (int, error) {
	n := len(b)
	l.partial = append(l.partial, b...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		l.emit(l.partial[:i])
		l.partial = l.partial[i+1:]
	}
	if len(l.partial) > 64<<10 {
		l.emit(l.partial)
		l.partial = nil
	}
	l.partial = append([]byte(nil), l.partial...)
	return n, nil
}

func (l *lineLogger) emit(line []byte) {
	l.lines++
	switch {
	case l.lines < maxStderrLines:
		l.log.Warn("judge worker stderr", "worker", l.worker, "pid", l.pid.Load(), "line", string(line))
	case l.lines == maxStderrLines:
		l.log.Warn("judge worker stderr: further lines dropped", "worker", l.worker, "pid", l.pid.Load())
	}
}
