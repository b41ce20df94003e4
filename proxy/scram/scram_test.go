package scram

import (
	"errors"
	"strings"
	"testing"
)

// TestExchangeRejects: malformed messages are ErrMalformed, a wrong proof
// ErrBadPassword. (Real clients log in through dbfree's and the admin
// console's tests: psql, pgx, psycopg2, node-postgres.)
func TestExchangeRejects(t *testing.T) {
	s, err := NewSecret("pw")
	if err != nil {
		t.Fatal(err)
	}
	for _, first := range []string{"", "p=tls-server-end-point,,n=,r=abc", "n,a=admin,n=,r=abc", "n,,n=", "x"} {
		x := &Exchange{Secret: s}
		if _, err := x.First(first); !errors.Is(err, ErrMalformed) {
			t.Errorf("First(%q) = %v, want ErrMalformed", first, err)
		}
	}
	x := &Exchange{Secret: s}
	sf, err := x.First("n,,n=,r=clientnonce")
	if err != nil || !strings.HasPrefix(sf, "r=clientnonce") || !strings.Contains(sf, ",i=4096") {
		t.Fatalf("First = %q, %v", sf, err)
	}
	nonce := strings.TrimPrefix(strings.Split(sf, ",")[0], "r=")
	zeroProof := "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
	if _, err := x.Final("c=biws,r=" + nonce + ",p=" + zeroProof); !errors.Is(err, ErrBadPassword) {
		t.Errorf("wrong proof: %v, want ErrBadPassword", err)
	}
	for _, final := range []string{"c=biws,r=" + nonce, "c=biws,r=other,p=" + zeroProof, "c=biws,r=" + nonce + ",p=!!"} {
		if _, err := x.Final(final); !errors.Is(err, ErrMalformed) {
			t.Errorf("Final(%q) = %v, want ErrMalformed", final, err)
		}
	}
}

// FuzzExchange: no client message makes the server side panic, and only
// the right proof passes.
func FuzzExchange(f *testing.F) {
	f.Add("n,,n=,r=abc", "c=biws,r=abc,p=AAAA")
	f.Add("y,,n=user,r=", "c=biws,p=")
	f.Add("n,,n=,r=abc,r=def", "c=biws,r=abcX,p=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")
	s, err := NewSecret("pw")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, first, final string) {
		x := &Exchange{Secret: s}
		if _, err := x.First(first); err != nil {
			return
		}
		if _, err := x.Final(final); err == nil {
			t.Fatalf("a proof passed without the password: %q %q", first, final)
		}
	})
}
