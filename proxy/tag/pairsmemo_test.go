package tag

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestReadPairsAsParsePairs: the memo answers as parsePairs does, the
// first time and again, errors included; its shared answers have no
// spare capacity (a caller's append copies); and it stays bounded.
func TestReadPairsAsParsePairs(t *testing.T) {
	bodies := []string{
		"pgequiv_ref='SELECT%201',app='x'",
		" pgequiv_ref_id='q1' ",
		"pgequiv_ref='it\\'s'",
		"key='unterminated",
		"novalue",
		"",
		"pgequiv_ref='" + strings.Repeat("a", maxMemoBody) + "'", // too long to keep
	}
	for _, body := range bodies {
		want, wantErr := parsePairs(body)
		for i := range 2 {
			got, err := readPairs(body)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
				t.Fatalf("%q, call %d: readPairs = %v, %v; parsePairs = %v, %v", body, i+1, got, err, want, wantErr)
			}
			if cap(got) != len(got) {
				t.Errorf("%q: a shared answer with capacity %d for %d pairs", body, cap(got), len(got))
			}
		}
	}
	for i := range 3 * maxMemoBodies {
		readPairs(fmt.Sprintf("k='%d'", i))
	}
	pairsMemo.mu.Lock()
	n := len(pairsMemo.m)
	pairsMemo.mu.Unlock()
	if n > maxMemoBodies {
		t.Errorf("memo holds %d comments, bound %d", n, maxMemoBodies)
	}
}
