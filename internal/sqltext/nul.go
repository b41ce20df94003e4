package sqltext

import (
	"fmt"
	"strings"
)

// The parser behind the judge (pg_query, a C library) reads its input as a
// NUL-terminated C string, so a text with a NUL byte inside would be judged
// as its prefix: "SELECT dog_id FROM dogs\x00 WHERE junk" as "SELECT dog_id
// FROM dogs". PostgreSQL never accepts a NUL in query text (it is not a
// character in any server encoding), so such a text is refused, never
// truncated.

// NULError reports a NUL byte in a text meant for the judge.
type NULError struct {
	// Where names the text, e.g. "parameter $2" or "the reference".
	Where string
	// Offset is the byte offset of the first NUL.
	Offset int
}

func (e *NULError) Error() string {
	return fmt.Sprintf("%s contains a NUL byte at offset %d", e.Where, e.Offset)
}

// SQLState is PostgreSQL's code for a NUL in text,
// character_not_in_repertoire (what the server reports for "invalid byte
// sequence for encoding UTF8: 0x00").
const SQLState = "22021"

// CheckNUL returns a *NULError naming where if s contains a NUL byte.
func CheckNUL(where, s string) error {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return &NULError{Where: where, Offset: i}
	}
	return nil
}
