package protocol

import (
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

func TestNegotiate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		minor   uint32
		params  map[string]string
		answer  bool
		spoken  uint32
		options []string
	}{
		{"3.0", 0, nil, false, 0, nil},
		{"3.1, never used: 3.0", 1, nil, true, 0, nil},
		{"3.2", 2, nil, false, 2, nil},
		{"3.3", 3, nil, true, 2, nil},
		{"3.9999", 9999, nil, true, 2, nil},
		{"3.0 with options", 0, map[string]string{"_pq_.b": "1", "_pq_.a": "x", "application_name": "a"}, true, 0, []string{"_pq_.a", "_pq_.b"}},
		{"3.2 with an option", 2, map[string]string{"_pq_.x": "1"}, true, 2, []string{"_pq_.x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			params := map[string]string{"user": "u"}
			for k, v := range tc.params {
				params[k] = v
			}
			sm := &pgproto3.StartupMessage{ProtocolVersion: 3<<16 | tc.minor, Parameters: params}
			b, err := sm.Encode(nil)
			if err != nil {
				t.Fatal(err)
			}
			// Decoded as the server reads it: pgproto3 alone refuses 3.1
			// and 3.3+.
			msg, err := DecodeStartup(b)
			if err != nil {
				t.Fatalf("DecodeStartup: %v", err)
			}
			got := msg.(*pgproto3.StartupMessage)
			if got.ProtocolVersion != sm.ProtocolVersion {
				t.Fatalf("version %#x, want %#x", got.ProtocolVersion, sm.ProtocolVersion)
			}
			n := Negotiate(got)
			if n.NeedsAnswer() != tc.answer || n.Minor != tc.spoken || !slices.Equal(n.Options, tc.options) {
				t.Fatalf("Negotiate = %+v (answer %v), want answer %v, minor %d, options %v", n, n.NeedsAnswer(), tc.answer, tc.spoken, tc.options)
			}
			fw := n.Forwarded(got)
			if fw.ProtocolVersion != 3<<16|tc.spoken || fw.Parameters["user"] != "u" {
				t.Fatalf("forwarded %+v", fw)
			}
			for k := range fw.Parameters {
				if len(k) > 5 && k[:5] == "_pq_." {
					t.Fatalf("forwarded option %s", k)
				}
			}
		})
	}
}
