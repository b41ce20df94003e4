package catalog

import "strings"

// sqliteToPG rewrites SQLite DDL so that the PostgreSQL parser reads it,
// keeping every byte offset (and so every line) where it was: `name` and
// [name] become "name"; AUTOINCREMENT, UNSIGNED, WITHOUT ROWID, STRICT
// and ON CONFLICT <resolution> become spaces; the widths of integer and
// float types (int(11), float(10,2)), which PostgreSQL's grammar refuses
// and which do not change what SQLite stores, become spaces too. Strings
// and comments are left alone.
func sqliteToPG(ddl string) string {
	r := &liteDDL{ddl: ddl, out: []byte(ddl), integerAt: -1}
	for i := 0; i < len(ddl); {
		next, ok := r.step(i)
		if !ok {
			return string(r.out)
		}
		i = next
	}
	return string(r.out)
}

// A liteDDL is sqliteToPG's scan of ddl, writing over out.
type liteDDL struct {
	ddl string
	out []byte
	// The last two words outside strings, and where they start.
	prev, prev2     string
	prev2At, prevAt int
	// The rowid alias is a column declared exactly INTEGER: one written
	// INTEGER(11), UNSIGNED INTEGER or INTEGER UNSIGNED is not, nor is
	// INTEGER PRIMARY KEY DESC. Such an INTEGER becomes int4 (the same
	// family, and not spelled INTEGER for newColumn); a column
	// constraint's DESC after PRIMARY KEY becomes the comment
	// sqliteKeyDesc, which sets Table.IntegerKeyDesc.
	integerAt int  // the last INTEGER word of the column being read
	modifier  bool // the last word was UNSIGNED or ZEROFILL
	keyList   bool // in the column list of a PRIMARY KEY or UNIQUE table constraint
}

// blank writes spaces over bytes i to j, keeping the newlines.
func (r *liteDDL) blank(i, j int) {
	for k := i; k < j; k++ {
		if r.out[k] != '\n' {
			r.out[k] = ' '
		}
	}
}

// notAlias respells the INTEGER at at as int4: no rowid alias.
func (r *liteDDL) notAlias(at int) { copy(r.out[at:at+7], "int4   ") }

// step reads the token at i and returns where the next starts, or false
// where the text ends inside an unterminated name or comment.
func (r *liteDDL) step(i int) (int, bool) {
	ddl := r.ddl
	c := ddl[i]
	switch {
	case c == '\'':
		return r.singleQuoted(i), true
	case c == '"':
		r.prev2, r.prev = r.prev, "ident"
		return skipQuoted(ddl, i, '"'), true
	case c == '`':
		j := skipQuoted(ddl, i, '`')
		r.out[i] = '"'
		if j-1 > i && ddl[j-1] == '`' {
			r.out[j-1] = '"'
		}
		for k := i + 1; k < j-1; k++ {
			if ddl[k] == '"' {
				r.out[k] = '_' // rare; keeps offsets
			}
		}
		r.prev2, r.prev = r.prev, "ident"
		return j, true
	case c == '[':
		j := strings.IndexByte(ddl[i:], ']')
		if j < 0 {
			return 0, false
		}
		r.out[i], r.out[i+j] = '"', '"'
		r.prev2, r.prev = r.prev, "ident"
		return i + j + 1, true
	case c == '-' && strings.HasPrefix(ddl[i:], "--"):
		j := strings.IndexByte(ddl[i:], '\n')
		return i + j, j >= 0
	case c == '/' && strings.HasPrefix(ddl[i:], "/*"):
		j := strings.Index(ddl[i+2:], "*/")
		return i + j + 4, j >= 0
	case isWordByte(c):
		return r.word(i), true
	case c == ')':
		r.prev2, r.prev = r.prev, ")"
		r.keyList, r.modifier = false, false
	default:
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			if c == '(' {
				r.keyList = r.prev == "unique" || r.prev == "key" && r.prev2 == "primary"
			}
			if c == ',' || c == ';' {
				r.integerAt = -1
			}
			r.modifier = false
			r.prev2, r.prev = r.prev, string(c)
		}
	}
	return i + 1, true
}

// singleQuoted reads the string at i. SQLite reads a string where a name
// must be as the name: CREATE TABLE 'flights', a column 'id' int.
func (r *liteDDL) singleQuoted(i int) int {
	ddl := r.ddl
	j := skipQuoted(ddl, i, '\'')
	k := j
	for k < len(ddl) && (ddl[k] == ' ' || ddl[k] == '\t') {
		k++
	}
	nextWord := k < len(ddl) && isWordByte(ddl[k]) && !(ddl[k] >= '0' && ddl[k] <= '9')
	if sqliteNameBefore[r.prev] || (r.prev == "(" || r.prev == ",") && nextWord && j-1 > i && ddl[j-1] == '\'' &&
		!strings.Contains(ddl[i+1:j-1], "\"") {
		r.out[i], r.out[j-1] = '"', '"'
		r.prev2, r.prev = r.prev, "ident"
	}
	return j
}

// word reads the word at i and returns where the next token starts.
func (r *liteDDL) word(i int) int {
	ddl := r.ddl
	j := i
	for j < len(ddl) && isWordByte(ddl[j]) {
		j++
	}
	w, next, done := r.wordRule(strings.ToLower(ddl[i:j]), i, j)
	if done {
		return next
	}
	j = r.typeWidth(w, i, j)
	r.prev2, r.prev = r.prev, w
	r.prev2At, r.prevAt = r.prevAt, i
	return j
}

// wordRule rewrites word w, at i to j, where SQLite's grammar and
// PostgreSQL's part, returning the word to remember in its place (the
// previous one where the word goes), or done with where the scan goes
// on when a whole statement went.
func (r *liteDDL) wordRule(w string, i, j int) (word string, next int, done bool) {
	ddl, prev, prev2 := r.ddl, r.prev, r.prev2
	wasModifier := r.modifier
	r.modifier = false
	switch {
	case w == "unsigned" || w == "zerofill":
		if prev == "integer" && r.integerAt >= 0 {
			r.notAlias(r.integerAt)
		}
		r.modifier = true
		r.blank(i, j)
		w = prev
	case w == "integer":
		r.integerAt = i
		if wasModifier {
			r.notAlias(i)
		}
	case w == "autoincrement":
		r.blank(i, j)
		w = prev
	case (w == "asc" || w == "desc") && (r.keyList || prev == "key" && prev2 == "primary"):
		// PostgreSQL's grammar has no order in a key; SQLite's
		// INTEGER PRIMARY KEY DESC is no rowid alias.
		if w == "desc" && !r.keyList {
			copy(r.out[i:j], sqliteKeyDesc)
		} else {
			r.blank(i, j)
		}
		w = prev
	case w == "rowid" && prev == "without":
		// WITHOUT ROWID: WITH(  <option>) over the same bytes,
		// which createTable reads as Table.WithoutRowID.
		if k := strings.LastIndex(strings.ToLower(ddl[:i]), "without"); k >= 0 {
			r.blank(k, j)
			copy(r.out[k:k+5], "WITH(")
			copy(r.out[i:j], sqliteWithoutRowID+")")
		}
	case w == "binary" && prev == "collate":
		// The default collation, and a keyword PostgreSQL's
		// grammar refuses as a name.
		r.blank(r.prevAt, j)
	case strings.HasPrefix(w, "sqlite_") && (prev == "table" || prev == "exists"):
		// SQLite's own tables (sqlite_sequence, which every
		// AUTOINCREMENT table brings, declares untyped columns
		// PostgreSQL's grammar refuses) are no user's schema: the
		// statement goes.
		k := strings.LastIndex(strings.ToLower(ddl[:i]), "create")
		e := strings.IndexByte(ddl[j:], ';')
		if k >= 0 && e >= 0 {
			r.blank(k, j+e+1)
			r.prev2, r.prev = prev, ";"
			return w, j + e + 1, true
		}
	case prev == "begin" && (w == "deferred" || w == "immediate" || w == "exclusive"):
		// SQLite's BEGIN IMMEDIATE: a transaction all the same.
		r.blank(i, j)
		w = prev
	case w == "strict" && prev == ")":
		r.blank(i, j)
	case prev2 == "on" && prev == "conflict":
		// ON CONFLICT ROLLBACK/ABORT/FAIL/IGNORE/REPLACE
		r.blank(r.prev2At, j)
	}
	return w, j, false
}

// typeWidth blanks the width of numeric type w, the word at i to j,
// and returns where the scan goes on.
func (r *liteDDL) typeWidth(w string, i, j int) int {
	if !sqliteNumericTypes[w] {
		return j
	}
	ddl := r.ddl
	k := j
	for k < len(ddl) && (ddl[k] == ' ' || ddl[k] == '\t') {
		k++
	}
	if k < len(ddl) && ddl[k] == '(' {
		// float(10) PostgreSQL reads (as float4); float(10,2)
		// it refuses.
		if e := strings.IndexByte(ddl[k:], ')'); e >= 0 && (sqliteIntTypes[w] || strings.Contains(ddl[k:k+e], ",")) {
			r.blank(k, k+e+1)
			j = k + e + 1
			if w == "integer" {
				r.notAlias(i) // INTEGER(11) is no rowid alias
			}
		}
	}
	return j
}

// sqliteKeyDesc is what sqliteToPG writes over the DESC of a column's
// PRIMARY KEY DESC: a comment of its length, which the builder finds
// after the constraint (sqliteDescKey).
const sqliteKeyDesc = "/**/"

// sqliteWithoutRowID is the storage option sqliteToPG writes for WITHOUT
// ROWID (as WITH(  option)), which createTable reads.
const sqliteWithoutRowID = "nrid"

// sqliteNameBefore are the words after which SQLite reads a
// single-quoted string as a name.
var sqliteNameBefore = map[string]bool{"table": true, "exists": true, "references": true, "index": true, "on": true}

// sqliteNumericTypes are type names whose widths PostgreSQL's grammar
// refuses (int(11)) or reads otherwise (float(10,2)).
var sqliteNumericTypes = map[string]bool{
	"int": true, "integer": true, "tinyint": true, "smallint": true, "mediumint": true, "bigint": true,
	"float": true, "double": true, "real": true,
}

var sqliteIntTypes = map[string]bool{
	"int": true, "integer": true, "tinyint": true, "smallint": true, "mediumint": true, "bigint": true,
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// skipQuoted returns the offset after the quoted token starting at i,
// where a doubled quote stands for itself.
func skipQuoted(s string, i int, q byte) int {
	for j := i + 1; j < len(s); j++ {
		if s[j] == q {
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(s)
}

// blankPsqlMeta blanks the psql meta-commands of a script (a line that
// starts with a backslash outside any string, such as the \restrict and
// \unrestrict lines pg_dump writes), which no SQL parser reads, keeping
// every offset where it was.
func blankPsqlMeta(ddl string) string {
	var out []byte
	lineStart := true
	for i := 0; i < len(ddl); {
		c := ddl[i]
		switch {
		case lineStart && c == '\\':
			j := strings.IndexByte(ddl[i:], '\n')
			if j < 0 {
				j = len(ddl) - i
			}
			if out == nil {
				out = []byte(ddl)
			}
			for k := i; k < i+j; k++ {
				out[k] = ' '
			}
			i += j
			continue
		case c == '\'' || c == '"':
			i = skipQuoted(ddl, i, c)
		case c == '$':
			j := i + 1
			for j < len(ddl) && isWordByte(ddl[j]) && ddl[j] < 0x80 {
				j++
			}
			if j < len(ddl) && ddl[j] == '$' && (j == i+1 || ddl[i+1] < '0' || ddl[i+1] > '9') {
				tag := ddl[i : j+1]
				if e := strings.Index(ddl[j+1:], tag); e >= 0 {
					i = j + 1 + e + len(tag)
				} else {
					i = len(ddl)
				}
			} else {
				i++
			}
		case c == '-' && strings.HasPrefix(ddl[i:], "--"):
			j := strings.IndexByte(ddl[i:], '\n')
			if j < 0 {
				i = len(ddl)
			} else {
				i += j
			}
		case c == '/' && strings.HasPrefix(ddl[i:], "/*"):
			j := strings.Index(ddl[i+2:], "*/")
			if j < 0 {
				i = len(ddl)
			} else {
				i += j + 4
			}
		default:
			i++
		}
		lineStart = i > 0 && i <= len(ddl) && ddl[i-1] == '\n'
		if !lineStart && i < len(ddl) {
			// Leading spaces keep a line's start.
			k := i - 1
			for k >= 0 && (ddl[k] == ' ' || ddl[k] == '\t') {
				k--
			}
			lineStart = k < 0 || ddl[k] == '\n'
		}
	}
	if out == nil {
		return ddl
	}
	return string(out)
}
