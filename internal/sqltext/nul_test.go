package sqltext

import (
	"errors"
	"testing"
)

func TestCheckNUL(t *testing.T) {
	for _, tc := range []struct {
		where, s string
		want     string // "" for no error
	}{
		{"the query", "SELECT dog_id FROM dogs", ""},
		{"the query", "", ""},
		{"parameter $2", "SELECT dog_id FROM dogs\x00 WHERE junk", "parameter $2 contains a NUL byte at offset 23"},
		{"the reference", "\x00", "the reference contains a NUL byte at offset 0"},
		{"the candidate", "SELECT 1\x00\x00", "the candidate contains a NUL byte at offset 8"},
	} {
		err := CheckNUL(tc.where, tc.s)
		if tc.want == "" {
			if err != nil {
				t.Errorf("CheckNUL(%q): %v, want nil", tc.s, err)
			}
			continue
		}
		var ne *NULError
		if !errors.As(err, &ne) || err.Error() != tc.want {
			t.Errorf("CheckNUL(%q) = %v, want %q", tc.s, err, tc.want)
		}
	}
}
