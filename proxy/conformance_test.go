package proxy

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// A conformance script is a list of steps; each step sends messages and
// then reads backend messages until `count` messages of type `until` have
// arrived (default: one ReadyForQuery).
type confStep struct {
	send  []pgproto3.FrontendMessage
	until byte
	count int
}

type confScript struct {
	name  string
	steps []confStep
}

// confContains lists substrings that a script's direct transcript must
// have, so a script cannot silently degrade into errors only.
var confContains = map[string][]string{
	"function call":      {`V\x00\x00\x00\n\x00\x00\x00\x0242"`, "22P02"},
	"portal suspended":   {"PortalSuspended"},
	"copy in and out":    {"CopyOutResponse", "client gave up", "COPY 3"},
	"notice and notify":  {"NotificationResponse", "NoticeResponse"},
	"transaction states": {`\x05E"`, `\x05T"`},
	"large row":          {"DataRow"},
	"flush without sync": {"ParseComplete", "CommandComplete"},
}

func q(sql string) *pgproto3.Query { return &pgproto3.Query{String: sql} }

func parse(name, sql string, oids ...uint32) *pgproto3.Parse {
	return &pgproto3.Parse{Name: name, Query: sql, ParameterOIDs: oids}
}

func bind(portal, stmt string, params ...string) *pgproto3.Bind {
	b := &pgproto3.Bind{DestinationPortal: portal, PreparedStatement: stmt}
	for _, p := range params {
		b.Parameters = append(b.Parameters, []byte(p))
	}
	return b
}

func execute(portal string, maxRows uint32) *pgproto3.Execute {
	return &pgproto3.Execute{Portal: portal, MaxRows: maxRows}
}

var (
	syncMsg   = &pgproto3.Sync{}
	flush     = &pgproto3.Flush{}
	describeP = &pgproto3.Describe{ObjectType: 'P'}
)

func steps(groups ...[]pgproto3.FrontendMessage) []confStep {
	var s []confStep
	for _, g := range groups {
		s = append(s, confStep{send: g})
	}
	return s
}

func msgs(m ...pgproto3.FrontendMessage) []pgproto3.FrontendMessage { return m }

// conformanceScripts exercise the extended protocol in normal and odd
// orders, pipelining, errors in pipelines, COPY, notices and notifications.
var conformanceScripts = []confScript{
	{"simple multi-statement", steps(msgs(q("SELECT 1 AS a; SELECT 'two' AS b, 2.5::numeric AS c")))},
	{"simple error mid-string", steps(msgs(q("SELECT 1; SELECT 1/0; SELECT 3")), msgs(q("SELECT 4")))},
	{"empty query", steps(msgs(q("")), msgs(q(";")))},
	{"syntax error", steps(msgs(q("SELEKT 1")))},
	{"extended unnamed", steps(msgs(parse("", "SELECT $1::int + 1", 23), bind("", "", "41"), describeP, execute("", 0), syncMsg))},
	{"named statement reused and closed", steps(msgs(
		parse("s1", "SELECT $1::text || 'x'"), &pgproto3.Describe{ObjectType: 'S', Name: "s1"}, syncMsg,
		bind("", "s1", "a"), execute("", 0), bind("", "s1", "b"), execute("", 0), syncMsg,
		&pgproto3.Close{ObjectType: 'S', Name: "s1"}, syncMsg,
		bind("", "s1", "c"), execute("", 0), syncMsg))},
	{"bind before parse", steps(msgs(bind("", "nope"), execute("", 0), syncMsg), msgs(q("SELECT 'alive'")))},
	{"query ignored until sync after error", steps(msgs(parse("", "SELEKT"), q("SELECT 'ignored'"), bind("", ""), syncMsg), msgs(q("SELECT 'seen'")))},
	{"execute without bind", steps(msgs(execute("", 0), syncMsg))},
	{"describe missing portal", steps(msgs(&pgproto3.Describe{ObjectType: 'P', Name: "missing"}, syncMsg))},
	{"close missing statement", steps(msgs(&pgproto3.Close{ObjectType: 'S', Name: "missing"}, syncMsg))},
	{"portal suspended", steps(msgs(parse("", "SELECT g FROM generate_series(1, 5) g"), bind("p1", ""),
		execute("p1", 2), execute("p1", 2), execute("p1", 2), execute("p1", 2), syncMsg))},
	{"pipelined sync groups with error", steps(msgs(
		parse("", "SELECT 1"), bind("", ""), execute("", 0), syncMsg,
		parse("", "SELECT 1/0"), bind("", ""), execute("", 0), syncMsg,
		parse("", "SELECT 3"), bind("", ""), execute("", 0), syncMsg))},
	{"error inside one sync group skips the rest", steps(msgs(
		parse("", "SELECT 1"), bind("", ""), execute("", 0),
		parse("", "SELECT 1/0"), bind("", ""), execute("", 0),
		parse("", "SELECT 3"), bind("", ""), execute("", 0), syncMsg), msgs(q("SELECT 'after'")))},
	{"flush without sync", []confStep{
		{send: msgs(parse("f1", "SELECT 42"), flush), until: '1', count: 1},
		{send: msgs(bind("", "f1"), execute("", 0), flush), until: 'C', count: 1},
		{send: msgs(syncMsg)},
	}},
	{"parameter description", steps(msgs(parse("pd", "SELECT $1::int, $2::text, $3", 0, 0, 25),
		&pgproto3.Describe{ObjectType: 'S', Name: "pd"}, syncMsg))},
	{"stray syncs", steps(msgs(syncMsg, syncMsg), msgs(syncMsg))},
	{"transaction states", steps(
		msgs(q("BEGIN")), msgs(q("SELECT 1")), msgs(q("SELECT nope")), msgs(q("SELECT 1")), msgs(q("ROLLBACK")),
		msgs(q("BEGIN")), msgs(parse("", "SELECT 1/0"), bind("", ""), execute("", 0), syncMsg),
		msgs(parse("", "SELECT 1"), bind("", ""), execute("", 0), syncMsg), msgs(q("COMMIT")))},
	{"implicit transaction in extended batch", steps(msgs(
		parse("", "CREATE TEMP TABLE it (a int)"), bind("", ""), execute("", 0),
		parse("", "INSERT INTO it VALUES (1)"), bind("", ""), execute("", 0),
		parse("", "SELECT 1/0"), bind("", ""), execute("", 0), syncMsg), msgs(q("SELECT count(*) FROM pg_class WHERE relname = 'it'")))},
	{"copy in and out", []confStep{
		{send: msgs(q("CREATE TEMP TABLE ct (a int, b text)"))},
		{send: msgs(q("COPY ct FROM STDIN")), until: 'G', count: 1},
		{send: msgs(&pgproto3.CopyData{Data: []byte("1\tone\n2\ttwo\n")}, &pgproto3.CopyData{Data: []byte("3\tthree\n")}, &pgproto3.CopyDone{})},
		{send: msgs(q("COPY ct FROM STDIN")), until: 'G', count: 1},
		{send: msgs(&pgproto3.CopyData{Data: []byte("4\tfour\n")}, &pgproto3.CopyFail{Message: "client gave up"})},
		{send: msgs(q("COPY ct FROM STDIN")), until: 'G', count: 1},
		{send: msgs(&pgproto3.CopyData{Data: []byte("not-a-number\tx\n")}, &pgproto3.CopyDone{})},
		{send: msgs(q("COPY (SELECT * FROM ct ORDER BY a) TO STDOUT"))},
		{send: msgs(parse("", "COPY (SELECT * FROM ct ORDER BY a DESC) TO STDOUT"), bind("", ""), execute("", 0), syncMsg)},
	}},
	{"notice and notify", steps(
		msgs(q(`DO $$ BEGIN RAISE NOTICE 'n1'; RAISE WARNING 'w1'; END $$`)),
		msgs(q("LISTEN conf_chan")), msgs(q("NOTIFY conf_chan, 'payload'")), msgs(q("UNLISTEN *")))},
	{"parameter status", steps(msgs(q("SET application_name = 'conformance'")), msgs(q("SET DateStyle = 'German'")), msgs(q("SELECT '2024-01-02'::date")))},
	{"large row", steps(msgs(q("SELECT repeat('x', 200000) AS big, 1 AS small")),
		msgs(parse("", "SELECT repeat($1::text, 70000)"), bind("", "", "ab"), execute("", 0), syncMsg))},
	{"many small rows", steps(msgs(q("SELECT g, g::text FROM generate_series(1, 5000) g")))},
	{"function call", steps(msgs(&pgproto3.FunctionCall{Function: 177, /* int4pl(int4, int4) */
		ArgFormatCodes: []uint16{0}, Arguments: [][]byte{[]byte("2"), []byte("40")}, ResultFormatCode: 0}),
		msgs(&pgproto3.FunctionCall{Function: 177, ArgFormatCodes: []uint16{0}, Arguments: [][]byte{[]byte("x"), nil}}))},
}

// transcript runs a script on a fresh connection to host:port and returns
// one normalized line per backend message, startup included.
func transcript(t *testing.T, ctx context.Context, port int, s confScript, version uint32) []string {
	t.Helper()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	fe := pgproto3.NewFrontend(c, c)
	var out []string
	record := func(m pgproto3.BackendMessage) {
		out = append(out, normalize(m))
	}
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: version, Parameters: map[string]string{
		"user": pgtest.SuperUser, "database": pgtest.Database, "application_name": "conf", "client_encoding": "UTF8"}})
	all := append([]confStep{{}}, s.steps...) // step 0: startup, until ReadyForQuery
	for i, st := range all {
		for _, m := range st.send {
			fe.Send(m)
		}
		if err := fe.Flush(); err != nil {
			t.Fatal(err)
		}
		until, count := st.until, st.count
		if until == 0 {
			until, count = 'Z', 1
		}
		for seen := 0; seen < count; {
			m, err := fe.Receive()
			if err != nil {
				t.Fatalf("script %q step %d: %v (transcript so far:\n%s)", s.name, i, err, strings.Join(out, "\n"))
			}
			record(m)
			if typeByte(m) == until {
				seen++
			}
		}
	}
	fe.Send(&pgproto3.Terminate{})
	_ = fe.Flush()
	return out
}

// typeByte returns the wire type of a backend message.
func typeByte(m pgproto3.BackendMessage) byte {
	b, err := m.Encode(nil)
	if err != nil || len(b) == 0 {
		return 0
	}
	return b[0]
}

// normalize renders a message as its Go type and exact wire bytes, with
// volatile fields blanked.
func normalize(m pgproto3.BackendMessage) string {
	switch v := m.(type) {
	case *pgproto3.BackendKeyData:
		m = &pgproto3.BackendKeyData{SecretKey: make([]byte, len(v.SecretKey))}
	case *pgproto3.NotificationResponse:
		c := *v
		c.PID = 0
		m = &c
	}
	b, err := m.Encode(nil)
	if err != nil {
		return fmt.Sprintf("%T (not encodable: %v)", m, err)
	}
	return fmt.Sprintf("%T %q", m, b)
}

// TestConformance sends scripted message groups directly and through the
// proxy (with default and tiny buffers) and requires identical backend
// message sequences.
func TestConformance(t *testing.T) {
	ctx := testCtx(t, 120*time.Second)
	proxies := map[string]*testProxy{
		"default buffers": startProxy(t, upstreamOpts()),
		"16-byte buffers": startProxy(t, upstreamOpts(), testingKnobs{bufferSize: 16}),
	}
	for _, s := range conformanceScripts {
		t.Run(s.name, func(t *testing.T) {
			want := transcript(t, ctx, pg.Port, s, pgproto3.ProtocolVersion30)
			joined := strings.Join(want, "\n")
			for _, sub := range confContains[s.name] {
				if !strings.Contains(joined, sub) {
					t.Fatalf("direct transcript lacks %q:\n%s", sub, joined)
				}
			}
			for name, p := range proxies {
				got := transcript(t, ctx, p.Port, s, pgproto3.ProtocolVersion30)
				if d := diffLines(want, got); d != "" {
					t.Errorf("through proxy (%s) differs from direct:\n%s", name, d)
				}
			}
		})
	}
}

// diffLines returns a readable description of the first difference.
func diffLines(want, got []string) string {
	for i := 0; i < len(want) || i < len(got); i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			return fmt.Sprintf("message %d:\n direct: %s\n  proxy: %s\n(%d vs %d messages)", i, w, g, len(want), len(got))
		}
	}
	return ""
}

// TestConformanceProtocol32 starts with protocol 3.2: the upstream answers
// with NegotiateProtocolVersion (PostgreSQL < 18) or a longer
// BackendKeyData (18+), and either must reach the client as it would
// directly.
func TestConformanceProtocol32(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	p := startProxy(t, upstreamOpts())
	s := confScript{"protocol 3.2", steps(msgs(q("SELECT 1")))}
	want := transcript(t, ctx, pg.Port, s, pgproto3.ProtocolVersion32)
	got := transcript(t, ctx, p.Port, s, pgproto3.ProtocolVersion32)
	if d := diffLines(want, got); d != "" {
		t.Fatalf("through proxy differs from direct:\n%s", d)
	}
}
