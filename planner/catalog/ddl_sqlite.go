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
	out := []byte(ddl)
	blank := func(i, j int) {
		for k := i; k < j; k++ {
			if out[k] != '\n' {
				out[k] = ' '
			}
		}
	}
	var prev, prev2 string  // the last two words outside strings
	prev2At, prevAt := 0, 0 // where prev2 and prev start
	// The rowid alias is a column declared exactly INTEGER: one written
	// INTEGER(11), UNSIGNED INTEGER or INTEGER UNSIGNED is not, nor is
	// INTEGER PRIMARY KEY DESC. Such an INTEGER becomes int4 (the same
	// family, and not spelled INTEGER for newColumn); a column
	// constraint's DESC after PRIMARY KEY becomes the comment
	// sqliteKeyDesc, which sets Table.IntegerKeyDesc.
	notAlias := func(at int) { copy(out[at:at+7], "int4   ") }
	integerAt := -1   // the last INTEGER word of the column being read
	modifier := false // the last word was UNSIGNED or ZEROFILL
	keyList := false  // in the column list of a PRIMARY KEY or UNIQUE table constraint
	i := 0
	for i < len(ddl) {
		c := ddl[i]
		switch {
		case c == '\'':
			j := skipQuoted(ddl, i, '\'')
			// SQLite reads a string where a name must be as the name:
			// CREATE TABLE 'flights', a column 'id' int.
			k := j
			for k < len(ddl) && (ddl[k] == ' ' || ddl[k] == '\t') {
				k++
			}
			nextWord := k < len(ddl) && isWordByte(ddl[k]) && !(ddl[k] >= '0' && ddl[k] <= '9')
			if sqliteNameBefore[prev] || (prev == "(" || prev == ",") && nextWord && j-1 > i && ddl[j-1] == '\'' &&
				!strings.Contains(ddl[i+1:j-1], "\"") {
				out[i], out[j-1] = '"', '"'
				prev2, prev = prev, "ident"
			}
			i = j
		case c == '"':
			i = skipQuoted(ddl, i, '"')
			prev2, prev = prev, "ident"
		case c == '`':
			j := skipQuoted(ddl, i, '`')
			out[i] = '"'
			if j-1 > i && ddl[j-1] == '`' {
				out[j-1] = '"'
			}
			for k := i + 1; k < j-1; k++ {
				if ddl[k] == '"' {
					out[k] = '_' // rare; keeps offsets
				}
			}
			i = j
			prev2, prev = prev, "ident"
		case c == '[':
			j := strings.IndexByte(ddl[i:], ']')
			if j < 0 {
				return string(out)
			}
			out[i], out[i+j] = '"', '"'
			i += j + 1
			prev2, prev = prev, "ident"
		case c == '-' && strings.HasPrefix(ddl[i:], "--"):
			j := strings.IndexByte(ddl[i:], '\n')
			if j < 0 {
				return string(out)
			}
			i += j
		case c == '/' && strings.HasPrefix(ddl[i:], "/*"):
			j := strings.Index(ddl[i+2:], "*/")
			if j < 0 {
				return string(out)
			}
			i += j + 4
		case isWordByte(c):
			j := i
			for j < len(ddl) && isWordByte(ddl[j]) {
				j++
			}
			w := strings.ToLower(ddl[i:j])
			wasModifier := modifier
			modifier = false
			switch {
			case w == "unsigned" || w == "zerofill":
				if prev == "integer" && integerAt >= 0 {
					notAlias(integerAt)
				}
				modifier = true
				blank(i, j)
				w = prev
			case w == "integer":
				integerAt = i
				if wasModifier {
					notAlias(i)
				}
			case w == "autoincrement":
				blank(i, j)
				w = prev
			case (w == "asc" || w == "desc") && (keyList || prev == "key" && prev2 == "primary"):
				// PostgreSQL's grammar has no order in a key; SQLite's
				// INTEGER PRIMARY KEY DESC is no rowid alias.
				if w == "desc" && !keyList {
					copy(out[i:j], sqliteKeyDesc)
				} else {
					blank(i, j)
				}
				w = prev
			case w == "rowid" && prev == "without":
				// WITHOUT ROWID: WITH(  <option>) over the same bytes,
				// which createTable reads as Table.WithoutRowID.
				if k := strings.LastIndex(strings.ToLower(ddl[:i]), "without"); k >= 0 {
					blank(k, j)
					copy(out[k:k+5], "WITH(")
					copy(out[i:j], sqliteWithoutRowID+")")
				}
			case w == "binary" && prev == "collate":
				// The default collation, and a keyword PostgreSQL's
				// grammar refuses as a name.
				blank(prevAt, j)
			case strings.HasPrefix(w, "sqlite_") && (prev == "table" || prev == "exists"):
				// SQLite's own tables (sqlite_sequence, which every
				// AUTOINCREMENT table brings, declares untyped columns
				// PostgreSQL's grammar refuses) are no user's schema: the
				// statement goes.
				k := strings.LastIndex(strings.ToLower(ddl[:i]), "create")
				e := strings.IndexByte(ddl[j:], ';')
				if k >= 0 && e >= 0 {
					blank(k, j+e+1)
					prev2, prev = prev, ";"
					i = j + e + 1
					continue
				}
			case prev == "begin" && (w == "deferred" || w == "immediate" || w == "exclusive"):
				// SQLite's BEGIN IMMEDIATE: a transaction all the same.
				blank(i, j)
				w = prev
			case w == "strict" && prev == ")":
				blank(i, j)
			case prev2 == "on" && prev == "conflict":
				// ON CONFLICT ROLLBACK/ABORT/FAIL/IGNORE/REPLACE
				blank(prev2At, j)
			}
			if sqliteNumericTypes[w] {
				k := j
				for k < len(ddl) && (ddl[k] == ' ' || ddl[k] == '\t') {
					k++
				}
				if k < len(ddl) && ddl[k] == '(' {
					// float(10) PostgreSQL reads (as float4); float(10,2)
					// it refuses.
					if e := strings.IndexByte(ddl[k:], ')'); e >= 0 && (sqliteIntTypes[w] || strings.Contains(ddl[k:k+e], ",")) {
						blank(k, k+e+1)
						j = k + e + 1
						if w == "integer" {
							notAlias(i) // INTEGER(11) is no rowid alias
						}
					}
				}
			}
			prev2, prev = prev, w
			prev2At, prevAt = prevAt, i
			i = j
		case c == ')':
			prev2, prev = prev, ")"
			keyList, modifier = false, false
			i++
		default:
			if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				if c == '(' {
					keyList = prev == "unique" || prev == "key" && prev2 == "primary"
				}
				if c == ',' || c == ';' {
					integerAt = -1
				}
				modifier = false
				prev2, prev = prev, string(c)
			}
			i++
		}
	}
	return string(out)
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
