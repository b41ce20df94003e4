package config

import (
	"net"
	"os"
	"strings"
	"testing"
)

// TestDefaultListenFree: the default listen port is none of the ports
// other PostgreSQL services take by default (issue 37: 6432 was
// PgBouncer's, so the README's serve command failed to bind on a host
// running it), and the shipped proxy.yaml and the docs show that default,
// never the old one.
func TestDefaultListenFree(t *testing.T) {
	_, port, err := net.SplitHostPort(Default().Listen)
	if err != nil {
		t.Fatal(err)
	}
	taken := map[string]string{
		"5432": "PostgreSQL",
		"6432": "PgBouncer, pgcat, Odyssey",
		"6543": "Supavisor",
		"9999": "Pgpool-II",
	}
	if who, ok := taken[port]; ok {
		t.Fatalf("default listen port %s is %s's", port, who)
	}
	for _, tc := range []struct {
		file string
		want []string // each must appear
	}{
		{"../proxy.yaml", []string{"listen: " + DefaultListen, "-p " + port}},
		{"../README.md", []string{DefaultListen, "-p " + port}},
		{"../docs/database-free.md", []string{DefaultListen, "-p " + port}},
		{"../docs/proxy.md", []string{"listen: " + DefaultListen}},
	} {
		b, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		for _, w := range tc.want {
			if !strings.Contains(s, w) {
				t.Errorf("%s does not show %q", tc.file, w)
			}
		}
		for _, old := range []string{"127.0.0.1:6432", "-p 6432"} {
			if strings.Contains(s, old) {
				t.Errorf("%s still shows %q", tc.file, old)
			}
		}
	}
}
