//go:build linux

package proxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// fuzzObserver wants to see statements mentioning pgequiv and answers
// them with a notice, or refuses those mentioning "pgequiv refuse": a
// Parse then demotes a fast-relayed connection, and a Query is answered
// on the event loop where it mentions "pgequiv quick" (ObserveQuick) and
// by ObserveQuery on a goroutine otherwise. Unlike markObserver it keeps
// nothing: a fuzz run sees millions of statements.
type fuzzObserver struct{}

func (fuzzObserver) NeedsObservation(_ *Session, _ QueryKind, sql []byte) bool {
	return bytes.Contains(sql, []byte("pgequiv"))
}

func (fuzzObserver) ObserveQuery(_ context.Context, ev *QueryEvent) Action {
	a, _ := fuzzAnswer(ev.SQL)
	if a.Finish != nil {
		a.Notice, _ = a.Finish()
	}
	return Action{Notice: a.Notice, Refuse: a.Refuse}
}

func (fuzzObserver) ObserveQuick(_ context.Context, ev *QueryEvent) (QuickAction, bool) {
	if !bytes.Contains(ev.SQL, []byte("pgequiv quick")) {
		return QuickAction{}, false
	}
	return fuzzAnswer(ev.SQL)
}

func fuzzAnswer(sql []byte) (QuickAction, bool) {
	switch {
	case bytes.Contains(sql, []byte("pgequiv refuse")):
		return QuickAction{Refuse: &pgproto3.ErrorResponse{Message: "refused by pgequiv"}}, true
	case bytes.Contains(sql, []byte("pgequiv finish")):
		// Finished once the statement is sent (QuickAction.Finish).
		return QuickAction{Finish: func() (*pgproto3.NoticeResponse, func()) {
			return &pgproto3.NoticeResponse{Message: "seen by pgequiv"}, nil
		}}, true
	case bytes.Contains(sql, []byte("pgequiv")):
		return QuickAction{Notice: &pgproto3.NoticeResponse{Message: "seen by pgequiv"}}, true
	}
	return QuickAction{}, true
}

// fuzzUpstream is a fake upstream serving any number of connections. Each
// connection's startup names, as its application_name, the script that
// serves it after a trusting startup.
type fuzzUpstream struct {
	ln      net.Listener
	wg      sync.WaitGroup
	mu      sync.Mutex
	scripts map[string]func(be *pgproto3.Backend, conn net.Conn)
}

func newFuzzUpstream(tb testing.TB) *fuzzUpstream {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	u := &fuzzUpstream{ln: ln, scripts: map[string]func(*pgproto3.Backend, net.Conn){}}
	u.wg.Add(1)
	go u.accept()
	tb.Cleanup(func() {
		ln.Close()
		u.wg.Wait()
	})
	return u
}

func (u *fuzzUpstream) accept() {
	defer u.wg.Done()
	for {
		conn, err := u.ln.Accept()
		if err != nil {
			return
		}
		u.wg.Add(1)
		go func() {
			defer u.wg.Done()
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(30 * time.Second))
			be := pgproto3.NewBackend(conn, conn)
			msg, err := be.ReceiveStartupMessage()
			if err != nil {
				return
			}
			sm, ok := msg.(*pgproto3.StartupMessage)
			if !ok {
				return
			}
			u.mu.Lock()
			script := u.scripts[sm.Parameters["application_name"]]
			delete(u.scripts, sm.Parameters["application_name"])
			u.mu.Unlock()
			if script == nil || fakeStartup(be) != nil {
				return
			}
			script(be, conn)
		}()
	}
}

// expect has the connection started by application name app served by
// script.
func (u *fuzzUpstream) expect(app string, script func(be *pgproto3.Backend, conn net.Conn)) {
	u.mu.Lock()
	u.scripts[app] = script
	u.mu.Unlock()
}

// fuzzDial connects to p as application app and reads through the
// startup exchange, byte by byte so that nothing after ReadyForQuery is
// consumed. Everything on the connection ends by ctx's deadline.
func fuzzDial(ctx context.Context, p *testProxy, app string) (*net.TCPConn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", net.JoinHostPort(p.Host, strconv.Itoa(p.Port)))
	if err != nil {
		return nil, fmt.Errorf("dial proxy: %w", err)
	}
	c := nc.(*net.TCPConn)
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	startup, err := (&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
		Parameters: map[string]string{"user": "u", "database": "d", "application_name": app}}).Encode(nil)
	if err == nil {
		_, err = c.Write(startup)
	}
	for err == nil {
		var hdr [5]byte
		if _, err = io.ReadFull(c, hdr[:]); err != nil {
			break
		}
		n := int(hdr[1])<<24 | int(hdr[2])<<16 | int(hdr[3])<<8 | int(hdr[4])
		if n < 4 || n > 1<<16 {
			err = fmt.Errorf("startup message of length %d", n)
			break
		}
		if _, err = io.CopyN(io.Discard, c, int64(n-4)); err == nil && hdr[0] == 'Z' {
			return c, nil
		}
	}
	c.Close()
	return nil, fmt.Errorf("startup: %w", err)
}

// fuzzRelayEnv is a proxy for one fuzz iteration, in front of the fake
// upstream that all of a fuzz process's iterations share. A proxy per
// iteration is cheap next to the connections, and a failed iteration (the
// fuzzer runs more in the same process while minimizing) leaves nothing
// behind for the next one to trip on.
type fuzzRelayEnv struct {
	p    *testProxy
	up   *fuzzUpstream
	ends fastEnds
}

// fuzzBufferSize is small so that short inputs reach the paths of large
// ones: statements larger than the buffer, full buffers, frames forwarded
// over many reads.
const fuzzBufferSize = 512

// fuzzSeq names the connections of a fuzz process's iterations.
var fuzzSeq atomic.Uint64

func newFuzzRelayEnv(t *testing.T, up *fuzzUpstream) *fuzzRelayEnv {
	e := &fuzzRelayEnv{up: up, ends: make(fastEnds, 4)}
	opts := fakeOpts(up.ln.Addr().String())
	opts.Observer = fuzzObserver{}
	opts.MaxMessageSize = 4 * fuzzBufferSize
	k := e.ends.knobs()
	k.bufferSize = fuzzBufferSize
	e.p = startProxy(t, opts, k)
	return e
}

// stuck describes a wait that ran out of time, with the proxy's
// goroutines.
func stuck(what string) error {
	return fmt.Errorf("%s; proxy goroutines:\n%s", what, strings.Join(proxyGoroutines(), "\n\n"))
}

// relayOnce relays one client and one upstream byte stream through the
// fast relay: the upstream's first, then the client's, which ends with a
// half-close. If upstreamHangsUp, the upstream half-closes too after its
// bytes, racing the client's; otherwise it reads until the proxy hangs
// up, so that the client's bytes are all relayed. It returns the
// connection's final error; failures of the harness or the proxy's, such
// as a hang, are returned as err.
func (e *fuzzRelayEnv) relayOnce(ctx context.Context, clientIn, upstreamIn []byte, upstreamHangsUp bool) (connErr, err error) {
	app := "fuzz-" + strconv.FormatUint(fuzzSeq.Add(1), 10)
	upWrote := make(chan struct{})
	upDone := make(chan error, 1)
	e.up.expect(app, func(_ *pgproto3.Backend, conn net.Conn) {
		// The client's Flush shows that the proxy is relaying, so the
		// upstream's bytes go to the relay and not to authentication.
		var flush [5]byte
		if _, err := io.ReadFull(conn, flush[:]); err != nil {
			close(upWrote)
			upDone <- fmt.Errorf("upstream: reading the Flush: %w", err)
			return
		}
		wrote := make(chan struct{})
		go func() {
			defer close(wrote)
			// Fails only if the proxy is gone.
			if _, err := conn.Write(upstreamIn); err == nil && upstreamHangsUp {
				conn.(*net.TCPConn).CloseWrite()
			}
			close(upWrote)
		}()
		// Read whatever the proxy forwards until it hangs up, so that its
		// writes never wait for the upstream.
		_, err := io.Copy(io.Discard, conn)
		conn.Close()
		<-wrote
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			upDone <- errors.New("upstream: the proxy never hung up")
			return
		}
		upDone <- nil
	})

	c, err := fuzzDial(ctx, e.p, app)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	read := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, c)
		read <- err
	}()
	// The proxy may hang up at any point once it has the bytes: write
	// errors are expected.
	if _, err := c.Write([]byte{'H', 0, 0, 0, 4}); err == nil {
		select {
		case <-upWrote:
		case <-ctx.Done():
			return nil, stuck("the upstream never got the client's Flush")
		}
		if _, err := c.Write(clientIn); err == nil {
			c.CloseWrite()
		}
	}
	// A reset is a fine end: the proxy closed with input unread.
	if err := <-read; err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil, stuck("the proxy never closed the client connection")
		}
	}
	select {
	case <-e.ends: // demoted or not
	case <-ctx.Done():
		return nil, stuck("the connection never left the fast relay")
	}
	select {
	case end := <-e.p.ends:
		connErr = end.err
	case <-ctx.Done():
		return nil, stuck("the connection never ended")
	}
	select {
	case err := <-upDone:
		return connErr, err
	case <-ctx.Done():
		return connErr, stuck("the upstream connection never ended")
	}
}

// roundTrip runs one Query through the proxy, on the fast relay from start
// to end, and checks the answer.
func (e *fuzzRelayEnv) roundTrip(ctx context.Context) error {
	app := "health-" + strconv.FormatUint(fuzzSeq.Add(1), 10)
	upDone := make(chan error, 1)
	e.up.expect(app, func(be *pgproto3.Backend, _ net.Conn) {
		upDone <- func() error {
			msg, err := be.Receive()
			if q, ok := msg.(*pgproto3.Query); err != nil || !ok || q.String != "select 42" {
				return fmt.Errorf("upstream got %#v, %v; want the Query", msg, err)
			}
			be.Send(&pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("n"), DataTypeOID: 23, DataTypeSize: 4, TypeModifier: -1}}})
			be.Send(&pgproto3.DataRow{Values: [][]byte{[]byte("42")}})
			be.Send(&pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")})
			be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
			if err := be.Flush(); err != nil {
				return err
			}
			if msg, err := be.Receive(); err != nil || !isTerminate(msg) {
				return fmt.Errorf("upstream got %#v, %v; want Terminate", msg, err)
			}
			return nil
		}()
	})
	c, err := fuzzDial(ctx, e.p, app)
	if err != nil {
		return err
	}
	defer c.Close()
	fe := pgproto3.NewFrontend(c, c)
	fe.Send(&pgproto3.Query{String: "select 42"})
	if err := fe.Flush(); err != nil {
		return err
	}
	var got []string
	for {
		msg, err := fe.Receive()
		if err != nil {
			return fmt.Errorf("after %q: %w", got, err)
		}
		switch m := msg.(type) {
		case *pgproto3.RowDescription:
			got = append(got, "desc")
		case *pgproto3.DataRow:
			got = append(got, "row "+string(bytes.Join(m.Values, []byte(","))))
		case *pgproto3.CommandComplete:
			got = append(got, "complete "+string(m.CommandTag))
		default:
			got = append(got, fmt.Sprintf("%T", msg))
		}
		if _, ok := msg.(*pgproto3.ReadyForQuery); ok {
			break
		}
	}
	if want := "[desc row 42 complete SELECT 1 *pgproto3.ReadyForQuery]"; fmt.Sprint(got) != want {
		return fmt.Errorf("client got %q, want %s", got, want)
	}
	fe.Send(&pgproto3.Terminate{})
	if err := fe.Flush(); err != nil {
		return err
	}
	select {
	case err := <-upDone:
		if err != nil {
			return err
		}
	case <-ctx.Done():
		return stuck("the upstream never got Terminate")
	}
	select {
	case demoted := <-e.ends:
		if demoted {
			return errors.New("a plain Query was demoted")
		}
	case <-ctx.Done():
		return stuck("the connection never left the fast relay")
	}
	select {
	case end := <-e.p.ends:
		if end.err != nil {
			return fmt.Errorf("connection ended with %w", end.err)
		}
	case <-ctx.Done():
		return stuck("the connection never ended")
	}
	return nil
}

func isTerminate(msg pgproto3.FrontendMessage) bool {
	_, ok := msg.(*pgproto3.Terminate)
	return ok
}

// loopsEnded waits until the fast relay's loops have all ended, as each
// must once it has no connection left.
func (e *fuzzRelayEnv) loopsEnded(ctx context.Context) error {
	for {
		l := &e.p.fast
		l.mu.Lock()
		n := 0
		for _, loop := range l.loops {
			if loop != nil {
				n++
			}
		}
		l.mu.Unlock()
		if n == 0 {
			return nil
		}
		if ctx.Err() != nil {
			return stuck(fmt.Sprintf("%d fast relay loops still running without connections", n))
		}
		runtime.Gosched()
	}
}

// FuzzFastRelay relays arbitrary client and upstream byte streams through
// the fast relay of a real proxy (after a normal startup, with statements
// mentioning pgequiv demoting the connection to the goroutine relay), the
// upstream's first, then the client's, ending with half-closes (see
// relayOnce). Nothing may panic, the connection must leave the fast relay
// (demoted or not) and end by a deadline with a classified error, its loop
// must end, and a well-formed connection must then still get its answer.
func FuzzFastRelay(f *testing.F) {
	enc := func(msgs ...interface{ Encode([]byte) ([]byte, error) }) []byte { return encodeAll(f, msgs...) }
	result := enc(&pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("n"), DataTypeOID: 23, DataTypeSize: 4, TypeModifier: -1}}},
		&pgproto3.DataRow{Values: [][]byte{[]byte("1")}}, &pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")},
		&pgproto3.ReadyForQuery{TxStatus: 'I'})
	extended := enc(&pgproto3.Parse{Query: "select $1"}, &pgproto3.Bind{Parameters: [][]byte{[]byte("1")}},
		&pgproto3.Describe{ObjectType: 'P'}, &pgproto3.Execute{}, &pgproto3.Sync{})
	extendedResult := enc(&pgproto3.ParseComplete{}, &pgproto3.BindComplete{}, &pgproto3.DataRow{Values: [][]byte{[]byte("1")}},
		&pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")}, &pgproto3.ReadyForQuery{TxStatus: 'I'})
	errResult := enc(&pgproto3.ErrorResponse{Severity: "ERROR", Code: "42601", Message: "syntax error"},
		&pgproto3.ReadyForQuery{TxStatus: 'E'})
	bigRow := enc(&pgproto3.DataRow{Values: [][]byte{bytes.Repeat([]byte("r"), 3*fuzzBufferSize)}})

	f.Add(enc(&pgproto3.Query{String: "select 1"}), result, false)
	f.Add(append(enc(&pgproto3.Query{String: "select 1"}), extended...), append(append([]byte(nil), result...), extendedResult...), false)
	f.Add(enc(&pgproto3.Query{String: "select 1"}, &pgproto3.Terminate{}), errResult, false)
	// Demotion mid-stream: the statement for the observer comes between
	// two others while the upstream is halfway through a row.
	f.Add(enc(&pgproto3.Query{String: "select 2"}, &pgproto3.Query{String: "select 'pgequiv'"}, &pgproto3.Query{String: "select 4"}),
		append(append([]byte(nil), result...), bigRow[:fuzzBufferSize+100]...), false)
	// Answered on the loop and refused there, or by ObserveQuery: notices
	// and refusals before their ReadyForQuery, the upstream pipelined.
	f.Add(enc(&pgproto3.Query{String: "select 'pgequiv quick'"}, &pgproto3.Query{String: "select 'pgequiv quick refuse'"},
		&pgproto3.Query{String: "select 'pgequiv refuse'"}, &pgproto3.Query{String: "select 'pgequiv'"}),
		append(append(append(append([]byte(nil), result...), enc(&pgproto3.ReadyForQuery{TxStatus: 'I'})...), enc(&pgproto3.ReadyForQuery{TxStatus: 'I'})...), result...), false)
	// Finished once sent (QuickAction.Finish), beside one refused and
	// one answered at once, pipelined.
	f.Add(enc(&pgproto3.Query{String: "select 'pgequiv quick finish'"}, &pgproto3.Query{String: "select 'pgequiv quick refuse'"},
		&pgproto3.Query{String: "select 'pgequiv quick finish'"}, &pgproto3.Query{String: "select 'pgequiv quick'"}),
		append(append(append(append([]byte(nil), result...), enc(&pgproto3.ReadyForQuery{TxStatus: 'I'})...), result...), result...), false)
	// A Query for the observer whose text has no terminating NUL.
	f.Add(append([]byte("Q\x00\x00\x00\x19select 'pgequiv quick"), enc(&pgproto3.Query{String: "select 1"})...), result, false)
	f.Add(enc(&pgproto3.Query{String: "select 'pgequiv quick'"}, &pgproto3.Query{String: "select 'pgequiv quick'"}),
		append(append([]byte(nil), result...), bigRow[:fuzzBufferSize+100]...), true)
	f.Add(append(extended[:len(extended)-5], enc(&pgproto3.Parse{Query: "select pgequiv()"}, &pgproto3.Sync{})...), extendedResult, false)
	// A statement larger than the buffer, and one the filter must see.
	f.Add(enc(&pgproto3.Query{String: "select '" + string(bytes.Repeat([]byte("x"), fuzzBufferSize)) + "'"}), bigRow, false)
	f.Add(enc(&pgproto3.Query{String: "select 'pgequiv" + string(bytes.Repeat([]byte("x"), fuzzBufferSize)) + "'"}), result, false)
	// Oversized lengths: beyond MaxMessageSize, beyond MaxInt32.
	f.Add([]byte("Q\x00\x01\x00\x00select"), []byte("D\xff\xff\xff\xff"), false)
	f.Add([]byte("Q\x7f\xff\xff\xffselect"), []byte("D\x7f\xff\xff\xff\x00\x01"), false)
	// Truncated headers.
	f.Add([]byte("Q\x00\x00"), []byte("Z\x00"), false)
	f.Add(append(enc(&pgproto3.Query{String: "select 1"}), 'P', 0), append(append([]byte(nil), result...), 'D', 0, 0), false)
	// Lengths below 4.
	f.Add([]byte("Q\x00\x00\x00\x03"), []byte("D\x00\x00\x00\x02"), false)
	f.Add(append(enc(&pgproto3.Sync{}), "S\x00\x00\x00\x00"...), append(enc(&pgproto3.ReadyForQuery{TxStatus: 'I'}), "Z\x00\x00\x00\x00"...), false)
	f.Add([]byte(nil), []byte(nil), false)
	// The upstream hangs up: after the client's Terminate, mid-row, and
	// while a statement demotes the connection.
	f.Add(enc(&pgproto3.Query{String: "select 1"}, &pgproto3.Terminate{}), result, true)
	f.Add(enc(&pgproto3.Query{String: "select 1"}), append(append([]byte(nil), result...), bigRow[:fuzzBufferSize+100]...), true)
	f.Add(enc(&pgproto3.Query{String: "select 2"}, &pgproto3.Query{String: "select 'pgequiv'"}), errResult, true)

	up := newFuzzUpstream(f)
	f.Fuzz(func(t *testing.T, clientIn, upstreamIn []byte, upstreamHangsUp bool) {
		env := newFuzzRelayEnv(t, up)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		connErr, err := env.relayOnce(ctx, clientIn, upstreamIn, upstreamHangsUp)
		if err != nil {
			t.Fatal(err)
		}
		if connErr != nil && CodeOf(connErr) == CodeNone {
			t.Fatalf("unclassified error %T: %v", connErr, connErr)
		}
		if err := env.roundTrip(ctx); err != nil {
			t.Fatalf("a well-formed connection after the fuzzed one: %v", err)
		}
		if err := env.loopsEnded(ctx); err != nil {
			t.Fatal(err)
		}
	})
}
