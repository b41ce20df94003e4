//go:build linux

package proxy

import (
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/jackc/pgx/v5/pgproto3"
	"golang.org/x/sys/unix"

	"github.com/pgequiv/pgequiv/protocol"
)

// fastLoops is a server's pool of event loops for the fast relay. A loop
// starts with its first connection and ends with its last, so an idle
// server holds no goroutine, thread or epoll instance. The zero value is
// ready to use.
type fastLoops struct {
	mu    sync.Mutex
	loops []*fastLoop  // nil: that slot's loop is not running
	made  atomic.Int64 // buffers the loops allocated (getBuf found none free)
}

// fastLoop is one event loop: one goroutine, one epoll instance with
// level-triggered interest in both sockets of each of its connections, and
// an eventfd that wakes it for commands.
//
// Sockets are watched level-triggered, and each readiness event gets one
// read: a request/response exchange then costs one read and one write per
// direction, with no read that ends in EAGAIN, where the goroutine relay
// reads until EAGAIN to park in the Go netpoller.
type fastLoop struct {
	pool   *fastLoops
	slot   int
	epfd   int
	wakefd int

	// Guarded by pool.mu.
	conns int       // connections registered and not yet released
	cmds  []fastCmd // commands for the loop, in order
	spare []fastCmd // the previous command slice, reused
	exit  bool      // the loop has left its slot; abort drops commands

	// Owned by the loop goroutine.
	byFD   []*fastConn // connection by socket fd
	events []syscall.EpollEvent
	dirty  bool     // a connection was released since the last exit check
	free   [][]byte // buffers no connection holds
	after  []func() // QuickAction.After work, run when the loop is idle
	// finishing: answers whose statements were forwarded before their
	// notices were worked out (QuickAction.Finish), finished after the
	// event that framed them.
	finishing []quickFinish
	log       *slog.Logger // the server's (Options.Logger)
	// Statements decoded for a filter (fastConn.needsObservation): the
	// loop's, so that its connections carry no decoding state until one
	// of their statements needs observing.
	query protocol.Query
	parse protocol.Parse
}

// maxFreeBufs bounds a loop's free list. A connection holds a buffer only
// between a read and the end of the write it feeds, unless its reader is
// slow, so a few buffers serve many connections.
const maxFreeBufs = 64

// getBuf returns a buffer of size bytes.
func (l *fastLoop) getBuf(size int) []byte {
	if n := len(l.free); n > 0 {
		b := l.free[n-1]
		l.free[n-1] = nil
		l.free = l.free[:n-1]
		if len(b) == size {
			return b
		}
	}
	l.pool.made.Add(1)
	return make([]byte, size)
}

// putBuf gives b back to the free list.
func (l *fastLoop) putBuf(b []byte) {
	if len(l.free) < maxFreeBufs {
		l.free = append(l.free, b)
	}
}

// fastCmd is a command for a loop: register fc, end it (abort), apply
// ObserveQuery's answer (observed) or go on once deferred notices are in
// (resume; fastasync_linux.go).
type fastCmd struct {
	fc       *fastConn
	abort    bool
	observed *Action
	resume   bool
}

// maxFastLoops is how many loops a server runs at most: half the
// processors (at least one), since each connection also keeps a client
// and a PostgreSQL backend busy, as PgBouncer's single thread assumes.
func maxFastLoops() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// register hands fc to the least loaded loop, starting one if a slot is
// free. Once it returns nil, fc will be released exactly once.
func (p *fastLoops) register(fc *fastConn) error {
	p.mu.Lock()
	if len(p.loops) == 0 {
		p.loops = make([]*fastLoop, maxFastLoops())
	}
	var l *fastLoop
	for i, cand := range p.loops {
		if cand == nil {
			nl, err := newFastLoop(p, i, fc.c.opts.Logger)
			if err != nil {
				if l != nil {
					break // use a running loop instead
				}
				p.mu.Unlock()
				return err
			}
			p.loops[i] = nl
			go nl.run()
			l = nl
			break
		}
		if l == nil || cand.conns < l.conns {
			l = cand
		}
	}
	l.conns++
	fc.loop = l
	l.cmds = append(l.cmds, fastCmd{fc: fc})
	l.wake()
	p.mu.Unlock()
	return nil
}

func newFastLoop(p *fastLoops, slot int, log *slog.Logger) (*fastLoop, error) {
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("fast relay: epoll_create1: %w", err)
	}
	r, _, errno := syscall.RawSyscall(syscall.SYS_EVENTFD2, 0, syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errno != 0 {
		syscall.Close(epfd)
		return nil, fmt.Errorf("fast relay: eventfd: %w", errno)
	}
	wakefd := int(r)
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(wakefd)}
	if err := syscall.EpollCtl(epfd, syscall.EPOLL_CTL_ADD, wakefd, &ev); err != nil {
		syscall.Close(epfd)
		syscall.Close(wakefd)
		return nil, fmt.Errorf("fast relay: epoll_ctl eventfd: %w", err)
	}
	return &fastLoop{pool: p, slot: slot, epfd: epfd, wakefd: wakefd, events: make([]syscall.EpollEvent, 128), log: log}, nil
}

// abort asks fc's loop to end fc, releasing it with errFastAborted unless
// it was released already.
func (fc *fastConn) abort() { fc.post(fastCmd{fc: fc, abort: true}) }

// post queues cmd for fc's loop. It reports false if the loop has ended,
// so that fc was released already.
func (fc *fastConn) post(cmd fastCmd) bool {
	l := fc.loop
	l.pool.mu.Lock()
	defer l.pool.mu.Unlock()
	if l.exit {
		return false
	}
	l.cmds = append(l.cmds, cmd)
	l.wake()
	return true
}

// wake interrupts the loop's epoll_wait. Call it with pool.mu held: the
// loop closes the eventfd under it when it ends, and a write after that
// could hit another file that took the descriptor number.
func (l *fastLoop) wake() {
	one := uint64(1)
	// EAGAIN means the counter is saturated: the loop is woken anyway.
	_, _, _ = syscall.RawSyscall(syscall.SYS_WRITE, uintptr(l.wakefd), uintptr(unsafe.Pointer(&one)), 8)
}

// run is the loop goroutine. It deliberately does not lock its OS thread:
// it blocks only in epoll_wait, so it keeps its thread anyway, and a locked
// thread would make every wait on pool.mu a thread handoff.
func (l *fastLoop) run() {
	for {
		n := l.wait()
		if n == 0 {
			// Nothing ready: the deferred work's turn, and then a wait
			// that blocks (a second poll would most likely find nothing).
			l.runAfter()
			n = l.block()
		}
		woken := false
		for i := range n {
			ev := &l.events[i]
			fd := int(ev.Fd)
			if fd == l.wakefd {
				woken = true
				continue
			}
			// A stale event for a released connection finds nil here;
			// one for a reused fd number finds its new connection, for
			// which a spurious readiness is harmless (EAGAIN).
			if fd < len(l.byFD) && l.byFD[fd] != nil {
				l.byFD[fd].onEvent(fd, ev.Events)
				// Before the next event, which may be the
				// answer: the notices must wait for it.
				l.finish()
			}
		}
		if len(l.after) >= maxAfter {
			l.runAfter() // a loop that never idles still does it
		}
		// Commands run after the batch, so that a connection registered
		// now cannot receive an event meant for a released one.
		if woken || l.dirty {
			ended := l.runCommands(woken)
			l.finish() // the answers of statements the commands framed
			if ended {
				l.runAfter()
				return
			}
		}
	}
}

// quickFinish is a forwarded statement's answer still to be finished:
// its notice goes before ReadyForQuery number seq of fc's connection.
type quickFinish struct {
	fc     *fastConn
	seq    uint64
	finish func() (*pgproto3.NoticeResponse, func())
}

// finish finishes the answers waiting in l.finishing. It runs after each
// event and command batch, which framed them and sent their statements,
// and before a connection leaves the loop (release, observeLater): no
// ReadyForQuery of theirs can have been framed yet, since the loop frames
// a connection's bytes only in its own events. A panic is logged and ends
// only that answer: the statement has gone, without a notice.
func (l *fastLoop) finish() {
	for i := 0; i < len(l.finishing); i++ {
		q := l.finishing[i]
		l.finishing[i] = quickFinish{}
		l.finishOne(q)
	}
	l.finishing = l.finishing[:0]
}

func (l *fastLoop) finishOne(q quickFinish) {
	defer func() {
		if r := recover(); r != nil {
			l.log.Error("pgequiv: query observer panicked finishing an answer; statement forwarded without its notice", "panic", r)
		}
	}()
	notice, after := q.finish()
	q.fc.c.queueQuick(QuickAction{Notice: notice}, q.seq)
	if after != nil {
		l.later(after)
	}
}

// maxAfter bounds the deferred work a busy loop keeps waiting.
const maxAfter = 64

// later defers f (a QuickAction's After) until the loop has nothing
// ready, or has maxAfter such functions waiting: the statement goes out
// first, and the work needs no goroutine, whose start would wake another
// thread for every statement.
func (l *fastLoop) later(f func()) { l.after = append(l.after, f) }

// runAfter runs the deferred work. A panic is logged and ends only the
// function that raised it, not the loop and its connections.
func (l *fastLoop) runAfter() {
	for i, f := range l.after {
		l.after[i] = nil
		l.runRecovered(f)
	}
	l.after = l.after[:0]
}

func (l *fastLoop) runRecovered(f func()) {
	defer func() {
		if r := recover(); r != nil {
			l.log.Error("pgequiv: deferred work of a fast-relay statement panicked", "panic", r)
		}
	}()
	f()
}

// wait returns the number of ready events, or 0 when none is ready and
// deferred work waits (runAfter). It polls without blocking first: under
// load events are usually waiting, and a raw call skips the scheduler's
// bookkeeping for a system call that may block.
func (l *fastLoop) wait() int {
	r, _, errno := syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, uintptr(l.epfd),
		uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)), 0, 0, 0)
	if errno == 0 && r > 0 {
		return int(r)
	}
	if len(l.after) > 0 {
		return 0
	}
	return l.block()
}

// block waits until an event is ready and returns how many are.
func (l *fastLoop) block() int {
	for {
		n, err := syscall.EpollWait(l.epfd, l.events, -1)
		if err == nil {
			return n
		}
		// EINTR only: the arguments are valid, so nothing else can fail.
	}
}

// runCommands drains the eventfd if woken and runs the queued commands. It
// reports whether the loop has ended, which it does when it has no
// connection left.
func (l *fastLoop) runCommands(woken bool) (ended bool) {
	if woken {
		var buf [8]byte
		_, _, _ = syscall.RawSyscall(syscall.SYS_READ, uintptr(l.wakefd), uintptr(unsafe.Pointer(&buf[0])), 8)
	}
	l.dirty = false

	p := l.pool
	p.mu.Lock()
	cmds := l.cmds
	l.cmds = l.spare[:0]
	p.mu.Unlock()
	for _, cmd := range cmds {
		fc := cmd.fc
		switch {
		case cmd.abort:
			if !fc.released {
				fc.release(fastEnd{err: errFastAborted})
			}
		case cmd.observed != nil && fc.released:
			abandon(*cmd.observed)
		case cmd.observed != nil:
			fc.applyObserved(*cmd.observed)
		case cmd.resume:
			if !fc.released {
				fc.resumeUpstream()
			}
		default:
			l.add(fc)
		}
	}
	clear(cmds)

	p.mu.Lock()
	defer p.mu.Unlock()
	l.spare = cmds[:0]
	if l.conns > 0 || len(l.cmds) > 0 {
		return false
	}
	l.exit = true
	p.loops[l.slot] = nil
	syscall.Close(l.epfd)
	syscall.Close(l.wakefd)
	return true
}

// add starts relaying fc. If its sockets cannot be watched, fc is handed
// back at once to the goroutine relay, which needs no epoll.
func (l *fastLoop) add(fc *fastConn) {
	for _, fd := range [2]int{fc.cl.fd, fc.up.fd} {
		if fd >= len(l.byFD) {
			l.byFD = append(l.byFD, make([]*fastConn, fd+1-len(l.byFD)+64)...)
		}
	}
	fc.cl.interest, fc.up.interest = syscall.EPOLLIN, syscall.EPOLLIN
	for _, fd := range [2]int{fc.cl.fd, fc.up.fd} {
		ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(fd)}
		if err := syscall.EpollCtl(l.epfd, syscall.EPOLL_CTL_ADD, fd, &ev); err != nil {
			fc.release(fastEnd{demoted: true, reason: "epoll_ctl: " + err.Error()})
			return
		}
		l.byFD[fd] = fc
	}
}

// setInterest changes the events watched on d's source socket.
func (l *fastLoop) setInterest(d *fastDir, want uint32) error {
	if d.interest == want {
		return nil
	}
	ev := syscall.EpollEvent{Events: want, Fd: int32(d.fd)}
	if err := syscall.EpollCtl(l.epfd, syscall.EPOLL_CTL_MOD, d.fd, &ev); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	d.interest = want
	return nil
}

// forget stops watching fd; it is not closed.
func (l *fastLoop) forget(fd int) {
	if fd < len(l.byFD) && l.byFD[fd] != nil {
		_ = syscall.EpollCtl(l.epfd, syscall.EPOLL_CTL_DEL, fd, nil)
		l.byFD[fd] = nil
	}
}

// released is called once per connection the loop gives up.
func (l *fastLoop) released() {
	l.pool.mu.Lock()
	l.conns--
	l.pool.mu.Unlock()
	l.dirty = true // the loop may end after this batch
}

// sysRead reads from a non-blocking socket. Raw: it never blocks, so the
// scheduler need not know.
func sysRead(fd int, p []byte) (int, syscall.Errno) {
	r, _, errno := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(r), errno
}

// sysSend writes to a non-blocking socket; MSG_NOSIGNAL turns a write to a
// closed peer into EPIPE without a SIGPIPE.
func sysSend(fd int, p []byte) (int, syscall.Errno) {
	r, _, errno := syscall.RawSyscall6(syscall.SYS_SENDTO, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)),
		syscall.MSG_NOSIGNAL, 0, 0)
	return int(r), errno
}

// sysSendIov writes iov to a non-blocking socket in one sendmsg, with
// MSG_NOSIGNAL as sysSend.
func sysSendIov(fd int, iov []unix.Iovec) (int, syscall.Errno) {
	var msg unix.Msghdr
	msg.Iov = &iov[0]
	msg.SetIovlen(len(iov))
	r, _, errno := syscall.RawSyscall(syscall.SYS_SENDMSG, uintptr(fd), uintptr(unsafe.Pointer(&msg)), syscall.MSG_NOSIGNAL)
	return int(r), errno
}
