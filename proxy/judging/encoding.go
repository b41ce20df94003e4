package judging

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pgequiv/pgequiv/proxy"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// ErrClientEncoding marks a statement the proxy cannot read as the server
// does because of the session's client_encoding. The proxy reads SQL as
// UTF-8. PostgreSQL converts the client's bytes from client_encoding
// first: under SJIS, BIG5, GBK, GB18030, UHC or JOHAB a multibyte
// character's second byte can be a backslash (0x5C), so that E'<83 5C>'
// closes a string where the proxy sees an escaped quote, and under any
// other encoding a byte over 0x7F is another character (the judge would
// weigh another literal). Text of ASCII bytes only reads the same in every
// client encoding PostgreSQL accepts, so only statements with other bytes
// are affected. Enforce mode refuses such a statement when it is judged
// (tagged, under a session reference, or where a match: catalog applies),
// whatever enforce_unknown says: the proxy does not transcode.
var ErrClientEncoding = errors.New("the proxy reads statements as UTF-8")

// encodingErr is ErrClientEncoding, explained, where ev's text holds a
// byte over 0x7F and the session's client_encoding is not UTF8, or a
// statement that may change it is still running (pipelined); nil
// otherwise.
func encodingErr(ev *proxy.QueryEvent) error {
	if isASCII(ev.SQL) {
		return nil
	}
	enc := strings.ToUpper(ev.ClientEncoding)
	switch {
	case enc != "" && enc != "UTF8" && enc != "UNICODE":
		return fmt.Errorf("%w, and this session's client_encoding is %s: a statement with bytes over 0x7F is not judged under it (use client_encoding UTF8)", ErrClientEncoding, enc)
	case ev.StringsUncertain:
		return fmt.Errorf("%w, and a statement that may change client_encoding was still running when this one (with bytes over 0x7F) was sent", ErrClientEncoding)
	}
	return nil
}

// bindEncodingErr is encodingErr for a bound value written as lit: the
// server reads a text value's bytes (and a binary one of a string type)
// in the client's encoding, the proxy as UTF-8, so under another
// encoding a value with bytes over 0x7F may be another string to the
// server than the one judged (UTF-8 "é", C3 A9, is "ﾃｩ" under SJIS).
func bindEncodingErr(ev *proxy.BindEvent, lit string) error {
	if isASCII([]byte(lit)) {
		return nil
	}
	enc := strings.ToUpper(ev.ClientEncoding)
	switch {
	case enc != "" && enc != "UTF8" && enc != "UNICODE":
		return fmt.Errorf("%w, and this session's client_encoding is %s: a value with bytes over 0x7F is not judged under it (use client_encoding UTF8)", ErrClientEncoding, enc)
	case ev.EncodingUncertain:
		return fmt.Errorf("%w, and a statement that may change client_encoding was still running when this value (with bytes over 0x7F) was bound", ErrClientEncoding)
	}
	return nil
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// enforcing reports whether enforce mode may apply to a statement: the
// proxy's mode, or a catalog entry's.
func enforcing(set *JudgeSettings) bool {
	return set.Mode == ModeEnforce || set.Catalog.HasMode(string(ModeEnforce))
}

// refuseEncoding refuses, in enforce mode, a statement that would be
// judged but cannot be read as the server reads it (encodingErr): its
// statements, tags and boundaries may not be what the proxy would read,
// so the whole Query is refused unread, and recorded as a verdict.
// ok is false where nothing is refused.
func (j *Judging) refuseEncoding(ctx context.Context, ev *proxy.QueryEvent, set *JudgeSettings, tags tag.Session, mentions bool, arrived time.Time) (proxy.Action, bool) {
	if !enforcing(set) {
		return proxy.Action{}, false
	}
	err := encodingErr(ev)
	if err == nil {
		return proxy.Action{}, false
	}
	job := &judgeJob{
		start: arrived, set: set, sess: *ev.Session, ref: unreadReference(set, tags, mentions), mode: ModeEnforce,
		candidate: headOf(ev.SQL, maxStoredSQL), tagErr: err,
	}
	if len(ev.SQL) > maxStoredSQL {
		job.full = &textDigest{size: len(ev.SQL), sum: j.digest(ev.SQL)}
	}
	job.sess.State = nil
	job.deadline = judgeDeadline(job.start, set)
	j.stats.tagged.Add(1)
	return j.enforce(job, j.run(ctx, job)), true
}
