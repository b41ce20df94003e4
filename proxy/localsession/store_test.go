package localsession

import "testing"

func TestStoreLookupErrors(t *testing.T) {
	s := NewStore[string, int]()
	if _, err := s.Statement("s1"); err == nil || err.Code != "26000" || err.Message != `prepared statement "s1" does not exist` {
		t.Errorf("unknown statement: %+v", err)
	}
	if _, err := s.Portal(""); err == nil || err.Code != "34000" || err.Message != `portal "" does not exist` {
		t.Errorf("unknown portal: %+v", err)
	}
	s.PutStatement("s1", "SELECT 1", 10)
	s.PutPortal("p1", 7, 5)
	if v, err := s.Statement("s1"); err != nil || v != "SELECT 1" {
		t.Errorf("Statement = %q, %v", v, err)
	}
	if v, err := s.Portal("p1"); err != nil || v != 7 {
		t.Errorf("Portal = %d, %v", v, err)
	}
}

func TestStoreDuplicates(t *testing.T) {
	s := NewStore[string, int]()
	s.PutStatement("", "a", 0)
	s.PutStatement("s", "b", 0)
	s.PutPortal("", 1, 0)
	s.PutPortal("p", 2, 0)
	if err := s.CheckNewStatement(""); err != nil {
		t.Errorf("the unnamed statement is replaced: %v", err)
	}
	if err := s.CheckNewStatement("s"); err == nil || err.Code != "42P05" || err.Message != `prepared statement "s" already exists` {
		t.Errorf("duplicate statement: %+v", err)
	}
	if err := s.CheckNewPortal(""); err != nil {
		t.Errorf("the unnamed portal is replaced: %v", err)
	}
	if err := s.CheckNewPortal("p"); err == nil || err.Code != "42P03" || err.Message != `cursor "p" already exists` {
		t.Errorf("duplicate portal: %+v", err)
	}
	if n := s.NamedStatements(); n != 1 {
		t.Errorf("NamedStatements = %d, want 1 (the unnamed one does not count)", n)
	}
	if n := s.Portals(); n != 2 {
		t.Errorf("Portals = %d, want 2", n)
	}
	if !s.HasPortal("") || s.HasPortal("q") {
		t.Error("HasPortal")
	}
}

func TestStoreHeld(t *testing.T) {
	s := NewStore[string, int]()
	s.PutStatement("", "a", 100)
	s.PutStatement("s", "b", 50)
	s.PutPortal("", 1, 20)
	if got := s.Held(); got != 170 {
		t.Fatalf("Held = %d, want 170", got)
	}
	if got := s.StatementGrowth("", 30); got != -70 {
		t.Errorf("StatementGrowth replacing = %d, want -70", got)
	}
	if got := s.StatementGrowth("new", 30); got != 30 {
		t.Errorf("StatementGrowth new = %d, want 30", got)
	}
	if got := s.PortalGrowth("", 25); got != 5 {
		t.Errorf("PortalGrowth = %d, want 5", got)
	}
	s.PutStatement("", "c", 30) // replaces
	if got := s.Held(); got != 100 {
		t.Errorf("Held after replacing = %d, want 100", got)
	}
	if err := s.Close('S', "s"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close('S', "gone"); err != nil {
		t.Errorf("closing an unknown statement is no error: %v", err)
	}
	if got := s.Held(); got != 50 {
		t.Errorf("Held after Close = %d, want 50", got)
	}
	s.PutPortal("p", 2, 10)
	s.ClosePortals()
	if got, n := s.Held(), s.Portals(); got != 30 || n != 0 {
		t.Errorf("after ClosePortals: Held = %d, Portals = %d; want 30, 0", got, n)
	}
	if err := s.Close('X', ""); err == nil || err.Code != "08P01" || err.Message != "invalid CLOSE message subtype 88" {
		t.Errorf("Close('X') = %+v", err)
	}
}
