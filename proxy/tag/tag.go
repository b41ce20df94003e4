// Package tag finds the reference a query is tagged with: a sqlcommenter
// comment (pgequiv_ref, pgequiv_ref_id), a session setting
// (SET pgequiv.reference / pgequiv.reference_id), or a catalog entry
// matched by id or by the query's pg_query fingerprint.
package tag

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/pgequiv/pgequiv/internal/sqltext"
)

// Keys of sqlcommenter comments that pgequiv reads. Other keys
// (traceparent, ...) are left alone.
const (
	KeyRef   = "pgequiv_ref"
	KeyRefID = "pgequiv_ref_id"
)

// ErrMalformed marks a pgequiv comment that could not be read.
var ErrMalformed = errors.New("malformed sqlcommenter comment")

// ErrLineComment marks a pgequiv tag inside a -- line comment, which
// PostgreSQL and the proxy skip: the statement is tagged but its tag is
// not read. Enforce mode refuses such a statement whatever
// enforce_unknown says (a tag that does not read must not let a
// statement run unjudged).
var ErrLineComment = errors.New("a pgequiv tag in a -- line comment is not read; put it in a /* */ comment")

// Comment is a parsed sqlcommenter comment.
type Comment struct {
	// Pairs are the comment's key/value pairs, decoded, in order.
	Pairs []KV
	// Start and End delimit the comment (/* through */) in the query.
	Start, End int
}

// KV is one key='value' pair.
type KV struct{ Key, Value string }

// Get returns the value of key.
func (c *Comment) Get(key string) (string, bool) {
	for _, kv := range c.Pairs {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return "", false
}

// FindComment returns the sqlcommenter comment of sql read with standard
// strings; see FindCommentIn.
func FindComment(sql string) (c *Comment, ok bool, err error) {
	return FindCommentIn(sql, sqltext.StandardStrings)
}

// FindCommentIn returns the sqlcommenter comment of sql: the last block
// comment, as PostgreSQL's lexer finds them with the session's strs,
// whose body is a list of key='value' pairs. ok is false when there is
// none, and for text the lexer rejects (the server runs none of it). A
// comment that names a pgequiv key but cannot be decoded is an error
// naming the offset.
func FindCommentIn(sql string, strs sqltext.Strings) (c *Comment, ok bool, err error) {
	spans, lerr := blockComments(sql, strs)
	if lerr != nil {
		return nil, false, nil
	}
	for _, span := range spans {
		body := sql[span[0]+2 : span[1]-2]
		pairs, perr := readPairs(body)
		if perr != nil {
			if strings.Contains(body, KeyRef) {
				err = fmt.Errorf("tag: %w at offset %d: %v", ErrMalformed, span[0], perr)
			}
			continue
		}
		c, ok, err = &Comment{Pairs: pairs, Start: span[0], End: span[1]}, true, nil
	}
	return c, ok, err
}

// TagsIn returns every sqlcommenter comment of sql that names a pgequiv
// key, in order, read with the relay's own lexer (sqltext.Lex, no pg_query call:
// for the proxy's overload path, which must learn what an unread
// statement's tags name without parsing it). A comment that names a
// pgequiv key but cannot be decoded, or text the lexer rejects, is an
// error.
func TagsIn(sql string, strs sqltext.Strings) ([]*Comment, error) {
	toks, err := sqltext.Lex(sql, strs)
	if err != nil {
		return nil, err
	}
	var out []*Comment
	for _, t := range toks {
		if t.Kind != sqltext.TokBlockComment {
			continue
		}
		body := sql[t.Start+2 : t.End-2]
		pairs, perr := readPairs(body)
		if perr != nil {
			if strings.Contains(body, "pgequiv") || strings.Contains(body, "%") {
				return nil, fmt.Errorf("tag: %w at offset %d: %v", ErrMalformed, t.Start, perr)
			}
			continue
		}
		c := &Comment{Pairs: pairs, Start: t.Start, End: t.End}
		_, ref := c.Get(KeyRef)
		_, id := c.Get(KeyRefID)
		if ref || id {
			out = append(out, c)
		}
	}
	return out, nil
}

// parsePairs reads key='value'(,key='value')* as sqlcommenter writes it:
// keys and values URL-encoded, quotes inside values escaped with a
// backslash.
func parsePairs(body string) ([]KV, error) {
	s := strings.TrimSpace(body)
	if s == "" {
		return nil, errors.New("empty comment")
	}
	var out []KV
	for len(s) > 0 {
		eq := strings.IndexByte(s, '=')
		if eq <= 0 {
			return nil, errors.New("want key='value'")
		}
		key, err := url.PathUnescape(strings.TrimSpace(s[:eq]))
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", s[:eq], err)
		}
		s = strings.TrimLeft(s[eq+1:], " ")
		if len(s) == 0 || s[0] != '\'' {
			return nil, fmt.Errorf("value of %q is not quoted", key)
		}
		var raw strings.Builder
		i := 1
		closed := false
		for ; i < len(s); i++ {
			if s[i] == '\\' && i+1 < len(s) {
				raw.WriteByte(s[i+1])
				i++
				continue
			}
			if s[i] == '\'' {
				closed = true
				break
			}
			raw.WriteByte(s[i])
		}
		if !closed {
			return nil, fmt.Errorf("value of %q is not terminated", key)
		}
		val, err := url.PathUnescape(raw.String())
		if err != nil {
			return nil, fmt.Errorf("value of %q: %w", key, err)
		}
		out = append(out, KV{Key: key, Value: val})
		s = strings.TrimSpace(s[i+1:])
		if len(s) > 0 {
			if s[0] != ',' {
				return nil, fmt.Errorf("want ',' after the value of %q", key)
			}
			s = strings.TrimSpace(s[1:])
		}
	}
	return out, nil
}

// Encode writes a sqlcommenter comment for pairs, sorted as given: the
// form clients produce, used by tests and tools.
func Encode(pairs ...KV) string {
	var b strings.Builder
	b.WriteString("/*")
	for i, kv := range pairs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(escape(kv.Key))
		b.WriteString("='")
		b.WriteString(strings.ReplaceAll(escape(kv.Value), "'", `\'`))
		b.WriteByte('\'')
	}
	b.WriteString("*/")
	return b.String()
}

func escape(s string) string {
	// url.PathEscape leaves ' alone and escapes what sqlcommenter needs.
	return strings.ReplaceAll(url.PathEscape(s), "*", "%2A")
}

// StripComment returns sql without its sqlcommenter comment, which is
// replaced by one space. The judge reads the query, not its tags: a tag
// carries the reference itself (a long query, URL-encoded) and per-request
// values such as traceparent, which would count against the judge's size
// bound and make every request a new text for its cache.
func StripComment(sql string) string {
	c, ok, err := FindComment(sql)
	if !ok || err != nil {
		return sql
	}
	return sql[:c.Start] + " " + sql[c.End:]
}
