package localsession

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// fakeHandler stores statement texts, binds them to portals and records
// what the session sends, one line per message.
type fakeHandler struct {
	out     []string
	sendErr error // every Send fails with it
}

var errBad = errors.New("bad statement")

func (h *fakeHandler) Query(sql string) ([]pgproto3.BackendMessage, error) {
	var msgs []pgproto3.BackendMessage
	for _, s := range strings.Split(sql, ";") {
		if s == "bad" {
			return msgs, errBad
		}
		msgs = append(msgs, &pgproto3.CommandComplete{CommandTag: []byte(s)})
	}
	return msgs, nil
}

func (h *fakeHandler) Parse(m *pgproto3.Parse) (string, int, error) {
	if m.Query == "bad" {
		return "", 0, errBad
	}
	return m.Query, len(m.Query), nil
}

func (h *fakeHandler) Bind(st string, m *pgproto3.Bind) (string, int, error) {
	return "portal of " + st, 1, nil
}

func (h *fakeHandler) DescribeStatement(st string) ([]pgproto3.BackendMessage, error) {
	return []pgproto3.BackendMessage{&pgproto3.ParameterDescription{}, &pgproto3.NoData{}}, nil
}

func (h *fakeHandler) DescribePortal(p string) ([]pgproto3.BackendMessage, error) {
	return []pgproto3.BackendMessage{&pgproto3.NoData{}}, nil
}

func (h *fakeHandler) Execute(p string, _ *pgproto3.Execute) ([]pgproto3.BackendMessage, error) {
	return []pgproto3.BackendMessage{&pgproto3.CommandComplete{CommandTag: []byte(p)}}, nil
}

func (h *fakeHandler) Send(m pgproto3.BackendMessage) error {
	if h.sendErr != nil {
		return h.sendErr
	}
	switch m := m.(type) {
	case *pgproto3.ReadyForQuery:
		h.out = append(h.out, "Z"+string(m.TxStatus))
	case *pgproto3.CommandComplete:
		h.out = append(h.out, "C "+string(m.CommandTag))
	default:
		h.out = append(h.out, strings.TrimPrefix(fmt.Sprintf("%T", m), "*pgproto3."))
	}
	return nil
}

func (h *fakeHandler) SendError(err error) error {
	code := "?"
	var le *Error
	if errors.As(err, &le) {
		code = le.Code
	}
	h.out = append(h.out, "E "+code+" "+err.Error())
	return h.Send(&pgproto3.NoticeResponse{}) // a send failure ends the session here too
}

func (h *fakeHandler) take() string {
	s := strings.Join(h.out, " | ")
	h.out = nil
	return strings.ReplaceAll(s, " | NoticeResponse", "")
}

func TestSessionExtended(t *testing.T) {
	h := &fakeHandler{}
	s := NewSession[string, string](h, Rules{})
	steps := []struct {
		run  func() error
		want string
	}{
		{func() error { return s.Parse(&pgproto3.Parse{Name: "s", Query: "SELECT 1"}) }, "ParseComplete"},
		{func() error { return s.Bind(&pgproto3.Bind{PreparedStatement: "s"}) }, "BindComplete"},
		{func() error { return s.Describe(&pgproto3.Describe{ObjectType: 'S', Name: "s"}) }, "ParameterDescription | NoData"},
		{func() error { return s.Describe(&pgproto3.Describe{ObjectType: 'P'}) }, "NoData"},
		{func() error { return s.Execute(&pgproto3.Execute{}) }, "C portal of SELECT 1"},
		{func() error { return s.Sync() }, "ZI"},
		// Without ClosePortalsAtSync the unnamed portal outlives Sync.
		{func() error { return s.Execute(&pgproto3.Execute{}) }, "C portal of SELECT 1"},
		{func() error { return s.Close(&pgproto3.Close{ObjectType: 'P'}) }, "CloseComplete"},
		{func() error { return s.Execute(&pgproto3.Execute{}) }, `E 34000 portal "" does not exist`},
		// Skipped until Sync.
		{func() error { return s.Parse(&pgproto3.Parse{Query: "SELECT 2"}) }, ""},
		{func() error { return s.Query("SELECT 3") }, ""},
		{func() error { return s.Sync() }, "ZI"},
		{func() error { return s.Bind(&pgproto3.Bind{PreparedStatement: "x"}) }, `E 26000 prepared statement "x" does not exist`},
		{func() error { return s.Sync() }, "ZI"},
		{func() error { return s.Parse(&pgproto3.Parse{Query: "bad"}) }, "E ? bad statement"},
		{func() error { return s.Sync() }, "ZI"},
		// The lenient rules read any object type but 'S' as a portal.
		{func() error { return s.Close(&pgproto3.Close{ObjectType: 'X', Name: "s"}) }, "CloseComplete"},
		{func() error { return s.Describe(&pgproto3.Describe{ObjectType: 'X', Name: "q"}) }, `E 34000 portal "q" does not exist`},
		{func() error { return s.Sync() }, "ZI"},
	}
	for i, st := range steps {
		if err := st.run(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got := h.take(); got != st.want {
			t.Errorf("step %d: sent %q, want %q", i, got, st.want)
		}
	}
	if s.Store.Held() != len("SELECT 1") {
		t.Errorf("Held = %d, want the statement's %d", s.Store.Held(), len("SELECT 1"))
	}
}

func TestSessionStrictRules(t *testing.T) {
	h := &fakeHandler{}
	s := NewSession[string, string](h, Rules{StrictObjectTypes: true, ClosePortalsAtSync: true})
	_ = s.Parse(&pgproto3.Parse{Query: "SELECT 1"})
	_ = s.Bind(&pgproto3.Bind{})
	_ = s.Sync()
	if got, want := h.take(), "ParseComplete | BindComplete | ZI"; got != want {
		t.Fatalf("sent %q, want %q", got, want)
	}
	if s.Store.Portals() != 0 || s.Store.Held() != len("SELECT 1") {
		t.Errorf("after Sync: %d portals, %d bytes held; want 0, %d", s.Store.Portals(), s.Store.Held(), len("SELECT 1"))
	}
	_ = s.Describe(&pgproto3.Describe{ObjectType: 'X'})
	_ = s.Sync()
	_ = s.Close(&pgproto3.Close{ObjectType: 'X'})
	_ = s.Sync()
	want := "E 08P01 invalid DESCRIBE message subtype 88 | ZI | E 08P01 invalid CLOSE message subtype 88 | ZI"
	if got := h.take(); got != want {
		t.Errorf("sent %q, want %q", got, want)
	}
}

func TestSessionQueryInBlock(t *testing.T) {
	h := &fakeHandler{}
	s := NewSession[string, string](h, Rules{})
	s.Tx.Begin()
	if err := s.Query("A;bad;B"); err != nil {
		t.Fatal(err)
	}
	// The statements before the error are answered; the block fails.
	if got, want := h.take(), "C A | E ? bad statement | ZE"; got != want {
		t.Errorf("sent %q, want %q", got, want)
	}
	// A simple Query's error does not skip until Sync.
	if s.Tx.Skipping() {
		t.Error("skipping after a simple Query's error")
	}
}

func TestSessionSendFailureEnds(t *testing.T) {
	gone := errors.New("client gone")
	h := &fakeHandler{sendErr: gone}
	s := NewSession[string, string](h, Rules{})
	if err := s.Query("A"); !errors.Is(err, gone) {
		t.Errorf("Query = %v, want the send error", err)
	}
	if err := s.Execute(&pgproto3.Execute{Portal: "none"}); !errors.Is(err, gone) {
		t.Errorf("Execute = %v, want the send error", err)
	}
}
