package judging

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"hash/maphash"
	"regexp"
	"strings"
	"unicode/utf8"

	pgq "github.com/pganalyze/pg_query_go/v5"
)

// SQL texts leave the proxy in two ways: shown to the client that sent
// them (notices and refusals, as they are), or kept and logged (SHOW
// VERDICTS, SHOW DIVERGENCES, verdict_log, log lines, spans), redacted as
// log.literals says and clipped. A judged statement's texts take this
// file's path: storeSQL for the query and its reference, the redactors
// for the verdict's texts, storeText to clip those.

// Bounds on the texts the proxy keeps per verdict (SHOW VERDICTS, SHOW
// DIVERGENCES, verdict_log, log lines, spans). A statement is bounded by
// max_message_size only (64 MiB by default); keeping it whole made the
// ring of 256 verdicts hold gigabytes and a few verdict_log lines rotate
// every earlier verdict out. The clipped form keeps the start, for people,
// and the full length and a digest, to tell texts apart.
const (
	// maxStoredSQL bounds a stored query or reference text.
	maxStoredSQL = 4 << 10
	// maxStoredText bounds a stored summary or counterexample.
	maxStoredText = 8 << 10
)

// textDigest stands for a text the proxy did not keep whole.
type textDigest struct {
	size int
	sum  string
}

// headOf returns the first n bytes of b, or fewer to end on a whole UTF-8
// character, as a new string.
func headOf(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	cut := n
	for cut > n-utf8.UTFMax && cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut])
}

// digest is a short digest of b: 64 bits of a hash keyed by a seed made
// when the proxy started, so that a text with a guessable literal cannot
// be found by hashing guesses offline, and fast (a 20 MB statement is
// hashed on the query's path: HMAC-SHA-256 took 100 ms there). It tells
// texts apart within a run; it is no cryptographic commitment.
func (j *Judging) digest(b []byte) string {
	return fmt.Sprintf("%016x", maphash.Bytes(j.digestSeed, b))
}

// storeSQL is a query or reference text as the verdict stores keep it:
// redacted as the settings say and clipped to maxStoredSQL with its full
// length and digest. full describes the original when text is already
// only its head.
func (j *Judging) storeSQL(set *JudgeSettings, text string, full *textDigest) string {
	if full == nil && len(text) <= maxStoredSQL {
		return j.redactor(set)(text)
	}
	if full == nil {
		full = &textDigest{size: len(text), sum: j.digest([]byte(text))}
		text = headOf([]byte(text), maxStoredSQL)
	}
	head := text
	if !set.LogLiterals {
		// The head may end inside a literal, which the scanner refuses:
		// the whole head is then withheld.
		head = redactLiterals(text)
	}
	return clipNote(head, full)
}

// clipNote appends to head the note that says it is the start of a text
// of full.size bytes.
func clipNote(head string, full *textDigest) string {
	return fmt.Sprintf("%s … [clipped: %d bytes, digest %s]", head, full.size, full.sum)
}

// storeText clips an already redacted text (a summary, a counterexample)
// to maxStoredText.
func (j *Judging) storeText(set *JudgeSettings, text string) string {
	if len(text) <= maxStoredText {
		return text
	}
	return clipNote(headOf([]byte(text), maxStoredText), &textDigest{size: len(text), sum: j.digest([]byte(text))})
}

// keepText is the redactor of texts shown as they are (notices and
// refusals go to the client that sent the query; log.literals).
func keepText(s string) string { return s }

// redactor is what the settings make of a SQL text before it is logged or
// remembered: kept with log.literals, else its literals hidden.
func (j *Judging) redactor(set *JudgeSettings) func(string) string {
	if set.LogLiterals {
		return keepText
	}
	return redactLiterals
}

// redactLiterals replaces every literal PostgreSQL's lexer knows with ?
// and drops comments (which may carry a reference with its literals).
// The literals are the scanner's: ” and E” strings, U&” (with its
// UESCAPE string), $$ and $tag$ quotes, N”, B”, X”, the strings of
// typed literals and arrays (date '...', '{1,2}'), and numbers (1e10, .5,
// 0x1F, 1_000). A double-quoted name is read again as SQL and redacted
// likewise, because error texts quote the token they stopped at
// (syntax error at or near "'RET_CONT'"). Text the scanner cannot read is
// withheld entirely.
func redactLiterals(s string) string {
	return redactText(s, nil)
}

// sqlStateRef is how pgx and the judge quote an error's code: PostgreSQL's
// scanner cannot read 28P01 (junk after a number), and one unreadable
// token withholds a whole text, so the codes are kept out of the scan.
var sqlStateRef = regexp.MustCompile(`\(SQLSTATE [0-9A-Z]{5}\)`)

// redactText is redactDepth one level deep, each "(SQLSTATE xxxxx)" kept
// as it is and the text between redacted on its own.
func redactText(s string, hint func(lit string) string) string {
	locs := sqlStateRef.FindAllStringIndex(s, -1)
	if locs == nil {
		return redactDepth(s, 1, hint)
	}
	var b strings.Builder
	last := 0
	for _, l := range locs {
		if part := redactDepth(s[last:l[0]], 1, hint); part != "" {
			b.WriteString(part)
			b.WriteByte(' ')
		}
		b.WriteString(s[l[0]:l[1]])
		last = l[1]
	}
	if part := redactDepth(s[last:], 1, hint); part != "" {
		b.WriteByte(' ')
		b.WriteString(part)
	}
	return b.String()
}

// redactDepth redacts s, reading double-quoted names as SQL depth levels
// deep; hint, if set, gives the mark that follows each ? for a literal.
func redactDepth(s string, depth int, hint func(lit string) string) string {
	res, err := pgq.Scan(s)
	if err != nil {
		return "<redacted>"
	}
	var b strings.Builder
	last := 0
	for i, t := range res.Tokens {
		start, end := int(t.Start), int(t.End)
		if start < last || end > len(s) || end < start {
			return "<redacted>"
		}
		switch t.Token {
		case pgq.Token_USCONST:
			// The scanner reports a U&'' string with no length (end =
			// start): it runs to the next token.
			end = len(s)
			if i+1 < len(res.Tokens) {
				end = int(res.Tokens[i+1].Start)
			}
			if end < start || end > len(s) {
				return "<redacted>"
			}
			end = start + len(strings.TrimRight(s[start:end], " \t\r\n\f"))
			fallthrough
		case pgq.Token_SCONST, pgq.Token_BCONST, pgq.Token_XCONST, pgq.Token_ICONST, pgq.Token_FCONST:
			b.WriteString(s[last:start])
			b.WriteByte('?')
			if hint != nil {
				b.WriteString(hint(s[start:end]))
			}
			last = end
		case pgq.Token_C_COMMENT, pgq.Token_SQL_COMMENT:
			b.WriteString(strings.TrimRight(s[last:start], " "))
			last = end
		case pgq.Token_IDENT:
			if depth == 0 || end-start < 2 || s[start] != '"' || s[end-1] != '"' {
				continue
			}
			inner := strings.ReplaceAll(s[start+1:end-1], `""`, `"`)
			if red := redactDepth(inner, depth-1, hint); red != strings.TrimSpace(inner) {
				b.WriteString(s[last:start])
				b.WriteString(`"` + strings.ReplaceAll(red, `"`, `""`) + `"`)
				last = end
			}
		}
	}
	b.WriteString(s[last:])
	return strings.TrimSpace(b.String())
}

// redactError is an error text as the settings let it be shown.
func (j *Judging) redactError(set *JudgeSettings, msg string) string {
	return j.hintRedactor(set)(msg)
}

// hintRedactor is the redactor of verdict texts (summaries, differences,
// counterexamples, errors): as redactor, but each ? carries a short mark
// that is the same for the same literal and, but for a 1 in 26^4
// chance, different for different ones, so that "age > 7 vs age > 5"
// reads "age > ?kqzt vs age > ?mbfa" rather than the same text twice.
// The mark is keyed by a secret made when the proxy started (digestKey),
// so a guessable literal cannot be found by hashing guesses offline;
// marks change across restarts.
func (j *Judging) hintRedactor(set *JudgeSettings) func(string) string {
	if set.LogLiterals {
		return keepText
	}
	return func(s string) string { return redactText(s, j.literalMark) }
}

// literalMark is the mark of literal lit: four lower-case letters (no
// digits, which would read as part of a number).
func (j *Judging) literalMark(lit string) string {
	h := hmac.New(sha256.New, j.digestKey[:])
	h.Write([]byte(lit))
	sum := h.Sum(nil)
	var m [4]byte
	for i := range m {
		m[i] = 'a' + sum[i]%26
	}
	return string(m[:])
}

// newLiteralKey returns a random key for literalMark.
func newLiteralKey() (k [32]byte) {
	// crypto/rand.Read does not fail on the platforms Go supports.
	_, _ = rand.Read(k[:])
	return k
}
