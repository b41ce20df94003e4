package catalog

import "strings"

// sqliteUntyped is the type name sqliteColumnDefs gives a SQLite column
// declared without one; newColumn reads it back as no type at all.
const sqliteUntyped = "pgequiv_sqlite_untyped"

// sqliteColumnDefs rewrites the column definitions of SQLite's CREATE
// TABLE that PostgreSQL's grammar refuses (after sqliteToPG), keeping
// every line where it was:
//
//   - A column without a type (`raw,`, `v PRIMARY KEY`): SQLite gives it
//     no affinity and it holds any value. It gets the placeholder type
//     sqliteUntyped, which the builder reads as no type (Unknown, what
//     sqlitefile reads from the pragmas for the same column).
//   - A generated column as SQLite spells it: `AS (expr)` without
//     GENERATED ALWAYS, and VIRTUAL or nothing after it, where
//     PostgreSQL 16's grammar wants GENERATED ALWAYS AS (expr) STORED.
//     Whether SQLite stores the value does not change what a query reads.
//   - A type name of several words PostgreSQL does not know (BIG INT,
//     VARYING CHARACTER(255)): one quoted name (sqliteTypeWords).
//
// Only the column list of CREATE [TEMP] TABLE is touched (not CREATE
// TABLE ... AS SELECT, not a virtual table's arguments, not CHECK or
// DEFAULT expressions, which sit deeper in parentheses).
func sqliteColumnDefs(ddl string) string {
	toks := sqliteTokens(ddl)
	var edits []sqliteEdit
	var stmt []string // the statement's first words at depth 0
	depth := 0
	inList := false   // in a CREATE TABLE's column list (depth 1)
	listSeen := false // the statement's column list has opened
	item := 0         // tokens so far in the list item at depth 1
	column := false   // the item is a column definition
	genClose := -1    // depth 1 again after this paren: a generated expression ends
	for i, t := range toks {
		next := sqliteToken{}
		if i+1 < len(toks) {
			next = toks[i+1]
		}
		switch t.text {
		case ";":
			stmt, depth, inList, listSeen = stmt[:0], 0, false, false
			continue
		case "(":
			depth++
			if depth == 1 && !listSeen && sqliteCreatesTable(stmt) {
				inList, listSeen, item = true, true, 0
				continue
			}
		case ")":
			depth--
			if depth == 0 {
				inList = false
			}
			if inList && depth == 1 && genClose == i {
				genClose = -1
				switch next.low() {
				case "stored":
				case "virtual":
					edits = append(edits, sqliteEdit{at: next.start, end: next.end, text: "stored"})
				default:
					edits = append(edits, sqliteEdit{at: t.end, end: t.end, text: " stored"})
				}
			}
		}
		if depth == 0 && !listSeen {
			if len(stmt) < 3 && t.word {
				stmt = append(stmt, t.low())
			}
			if t.word && t.low() == "as" {
				listSeen = true // CREATE TABLE ... AS SELECT: no column list
			}
			continue
		}
		if !inList || depth != 1 {
			continue
		}
		if t.text == "," {
			item = 0
			continue
		}
		if item == 0 {
			column = !(t.word && sqliteTableConstraint[t.low()])
			if column && (next.text == "," || next.text == ")" || next.word && sqliteColumnConstraint[next.low()]) {
				edits = append(edits, sqliteEdit{at: t.end, end: t.end, text: " " + sqliteUntyped})
			}
			if column {
				if e, ok := sqliteTypeWords(ddl, toks, i+1); ok {
					edits = append(edits, e)
				}
			}
		}
		item++
		if column && t.word && t.low() == "as" && next.text == "(" {
			if i == 0 || toks[i-1].low() != "always" {
				edits = append(edits, sqliteEdit{at: t.start, end: t.start, text: "generated always "})
			}
			genClose = sqliteMatchingParen(toks, i+1)
		}
	}
	if len(edits) == 0 {
		return ddl
	}
	var b strings.Builder
	last := 0
	for _, e := range edits {
		b.WriteString(ddl[last:e.at])
		b.WriteString(e.text)
		last = e.end
	}
	b.WriteString(ddl[last:])
	return b.String()
}

// sqliteTypeWords returns the edit that quotes a type name of several
// words starting at toks[i] (BIG INT, VARYING CHARACTER(255), INT
// AUTO_INCREMENT: SQLite takes any words as a type name) into one quoted
// name, which PostgreSQL's grammar reads as a type with the same words,
// so the column loads with that name as its type, as sqlitefile reads it
// from the pragmas. Names PostgreSQL itself spells in several words
// (DOUBLE PRECISION, CHARACTER VARYING, TIMESTAMP WITH TIME ZONE, ...)
// are left to its grammar.
func sqliteTypeWords(ddl string, toks []sqliteToken, i int) (sqliteEdit, bool) {
	j := i
	for j < len(toks) && toks[j].word && !sqliteColumnConstraint[toks[j].low()] {
		j++
	}
	if j-i < 2 || sqlitePGMultiWordType[toks[i].low()] {
		return sqliteEdit{}, false
	}
	if strings.Contains(ddl[toks[i].start:toks[j-1].end], "\n") {
		return sqliteEdit{}, false // the rewrite keeps every line where it was
	}
	var words []string
	for _, t := range toks[i:j] {
		words = append(words, t.text)
	}
	return sqliteEdit{at: toks[i].start, end: toks[j-1].end, text: `"` + strings.Join(words, " ") + `"`}, true
}

// sqlitePGMultiWordType are the first words of type names PostgreSQL's
// grammar reads in several words.
var sqlitePGMultiWordType = map[string]bool{
	"double": true, "character": true, "char": true, "national": true, "nchar": true, "bit": true,
	"time": true, "timestamp": true, "interval": true, "varchar": true,
}

// sqliteEdit replaces ddl[at:end] with text (at == end: an insertion).
// Edits are made in token order, so they never overlap.
type sqliteEdit struct {
	at, end int
	text    string
}

// sqliteToken is a word, a quoted name or string, or one punctuation
// character of DDL; comments and spaces are not tokens.
type sqliteToken struct {
	text       string
	start, end int
	word       bool // an unquoted word (a keyword or a name)
}

func (t sqliteToken) low() string {
	if !t.word {
		return ""
	}
	return strings.ToLower(t.text)
}

func sqliteTokens(ddl string) []sqliteToken {
	var toks []sqliteToken
	for i := 0; i < len(ddl); {
		c := ddl[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '-' && strings.HasPrefix(ddl[i:], "--"):
			j := strings.IndexByte(ddl[i:], '\n')
			if j < 0 {
				return toks
			}
			i += j
		case c == '/' && strings.HasPrefix(ddl[i:], "/*"):
			j := strings.Index(ddl[i+2:], "*/")
			if j < 0 {
				return toks
			}
			i += j + 4
		case c == '\'' || c == '"':
			j := skipQuoted(ddl, i, c)
			toks = append(toks, sqliteToken{text: ddl[i:j], start: i, end: j})
			i = j
		case isWordByte(c):
			j := i
			for j < len(ddl) && isWordByte(ddl[j]) {
				j++
			}
			toks = append(toks, sqliteToken{text: ddl[i:j], start: i, end: j, word: true})
			i = j
		default:
			toks = append(toks, sqliteToken{text: ddl[i : i+1], start: i, end: i + 1})
			i++
		}
	}
	return toks
}

// sqliteMatchingParen returns the index of the token that closes the
// parenthesis toks[open] opens, or -1.
func sqliteMatchingParen(toks []sqliteToken, open int) int {
	d := 0
	for i := open; i < len(toks); i++ {
		switch toks[i].text {
		case "(":
			d++
		case ")":
			d--
			if d == 0 {
				return i
			}
		case ";":
			return -1
		}
	}
	return -1
}

// sqliteCreatesTable reports whether a statement's first words are
// CREATE [TEMP|TEMPORARY] TABLE.
func sqliteCreatesTable(words []string) bool {
	if len(words) < 2 || words[0] != "create" {
		return false
	}
	return words[1] == "table" || len(words) > 2 && (words[1] == "temp" || words[1] == "temporary") && words[2] == "table"
}

// sqliteTableConstraint are the words a table constraint starts with in
// a column list; anything else starts a column definition.
var sqliteTableConstraint = map[string]bool{"constraint": true, "primary": true, "unique": true, "check": true, "foreign": true}

// sqliteColumnConstraint are the words a column constraint starts with:
// one right after a column's name means the column has no type.
var sqliteColumnConstraint = map[string]bool{
	"constraint": true, "primary": true, "not": true, "null": true, "unique": true, "check": true,
	"default": true, "collate": true, "references": true, "generated": true, "as": true,
}
