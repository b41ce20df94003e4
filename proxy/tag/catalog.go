package tag

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	"gopkg.in/yaml.v3"
)

// Entry is one reference in a catalog.
type Entry struct {
	// ID names the entry for pgequiv_ref_id tags and SET pgequiv.reference_id.
	ID string `yaml:"id"`
	// Match, when set, is a query as the application sends it; a query
	// with the same pg_query fingerprint (constants and layout aside) is
	// judged against Reference without any tag.
	Match string `yaml:"match"`
	// Fingerprint is a pg_query fingerprint to match instead of Match.
	Fingerprint string `yaml:"fingerprint"`
	// Reference is the SQL the query must mean.
	Reference string `yaml:"reference"`
	// Mode overrides the proxy's mode for this entry: annotate, log or
	// enforce.
	Mode string `yaml:"mode"`
	// Database restricts the entry to one database.
	Database string `yaml:"database"`
}

// Catalog maps ids and query fingerprints to references.
type Catalog struct {
	byID map[string]*Entry
	byFP map[string]*Entry
}

type catalogFile struct {
	References []Entry `yaml:"references"`
}

// LoadCatalog reads a catalog file; see ParseCatalog.
func LoadCatalog(path string) (*Catalog, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err // "open PATH: ..." says it all; callers say it is the catalog
	}
	c, err := ParseCatalog(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// ParseCatalog parses a catalog: a YAML document with a `references` list
// of entries (id, match or fingerprint, reference, mode, database).
// Unknown keys are errors.
func ParseCatalog(b []byte) (*Catalog, error) {
	var f catalogFile
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	c := &Catalog{byID: map[string]*Entry{}, byFP: map[string]*Entry{}}
	for i := range f.References {
		e := &f.References[i]
		where := fmt.Sprintf("references[%d]", i)
		if e.ID != "" {
			where += " (" + e.ID + ")"
		}
		if e.Reference == "" {
			return nil, fmt.Errorf("%s: reference is required", where)
		}
		if _, err := pg.Parse(e.Reference); err != nil {
			return nil, fmt.Errorf("%s: reference does not parse: %w", where, err)
		}
		switch e.Mode {
		case "", "annotate", "log", "enforce":
		default:
			return nil, fmt.Errorf("%s: mode %q is not annotate, log or enforce", where, e.Mode)
		}
		if e.ID == "" && e.Match == "" && e.Fingerprint == "" {
			return nil, fmt.Errorf("%s: needs an id, a match query or a fingerprint", where)
		}
		if e.ID != "" {
			if _, dup := c.byID[e.ID]; dup {
				return nil, fmt.Errorf("%s: duplicate id", where)
			}
			c.byID[e.ID] = e
		}
		fp := e.Fingerprint
		if e.Match != "" {
			var err error
			if fp, err = pg.Fingerprint(e.Match); err != nil {
				return nil, fmt.Errorf("%s: match does not parse: %w", where, err)
			}
			if e.Fingerprint != "" && e.Fingerprint != fp {
				return nil, fmt.Errorf("%s: fingerprint %s does not match the match query's %s", where, e.Fingerprint, fp)
			}
		}
		if fp != "" {
			if _, dup := c.byFP[fp]; dup {
				return nil, fmt.Errorf("%s: another entry matches the same query fingerprint %s", where, fp)
			}
			c.byFP[fp] = e
		}
	}
	return c, nil
}

// ByID returns the entry with id.
func (c *Catalog) ByID(id string) (*Entry, bool) {
	if c == nil {
		return nil, false
	}
	e, ok := c.byID[id]
	return e, ok
}

// Match returns the entry whose fingerprint equals sql's.
func (c *Catalog) Match(sql string) (*Entry, bool) {
	if c == nil || len(c.byFP) == 0 {
		return nil, false
	}
	fp, err := pg.Fingerprint(sql)
	if err != nil {
		return nil, false
	}
	e, ok := c.byFP[fp]
	return e, ok
}

// ErrWrappedMatch marks a statement that holds a catalog entry's match
// query inside it (a CTE, a subquery, a set operation) without being it:
// the proxy cannot judge the entry's query there, and a client could
// otherwise escape the entry by wrapping its query.
var ErrWrappedMatch = errors.New("a query the catalog matches is inside a larger statement; send it on its own")

// MatchWithin returns the entry matching a query nested in sql (a CTE, a
// subquery, an arm of a set operation, the query of a DECLARE, EXPLAIN,
// COPY or PREPARE), where sql itself does not match.
func (c *Catalog) MatchWithin(sql string) (*Entry, bool) {
	if c == nil || len(c.byFP) == 0 {
		return nil, false
	}
	tree, err := pg.Parse(sql)
	if err != nil {
		return nil, false
	}
	var found *Entry
	for _, raw := range tree.Stmts {
		walkSelects(raw.Stmt.ProtoReflect(), true, func(n *pg.Node) bool {
			text, err := pg.Deparse(&pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: n}}})
			if err != nil {
				return false
			}
			fp, err := pg.Fingerprint(text)
			if err != nil {
				return false
			}
			found = c.byFP[fp]
			return found != nil
		})
		if found != nil {
			return found, true
		}
	}
	return nil, false
}

// Len counts entries.
func (c *Catalog) Len() int {
	if c == nil {
		return 0
	}
	return len(c.byID) + len(c.byFP)
}

// ErrUnknownKey marks a comment with a pgequiv key that is neither
// pgequiv_ref nor pgequiv_ref_id: a mistyped tag is malformed, not
// absent, or its statement would run unjudged (issue 34, item 10).
var ErrUnknownKey = errors.New("unknown pgequiv key")

// unknownKey returns an ErrUnknownKey error for cm's first key that
// starts with pgequiv but is no tag key.
func unknownKey(cm *Comment) error {
	for _, kv := range cm.Pairs {
		k := strings.ToLower(kv.Key)
		if strings.HasPrefix(k, "pgequiv") && kv.Key != KeyRef && kv.Key != KeyRefID {
			return fmt.Errorf("tag: %w: %w %q (the keys are %s and %s)", ErrMalformed, ErrUnknownKey, kv.Key, KeyRef, KeyRefID)
		}
	}
	return nil
}

// ErrUnknownID is returned for a tag naming an id the catalog lacks.
var ErrUnknownID = errors.New("unknown reference id")

// Source says where a query's reference came from.
type Source string

// Sources.
const (
	FromComment      Source = "comment"
	FromSession      Source = "session"
	FromCatalogMatch Source = "catalog"
)

// Reference is what a query is to be judged against.
type Reference struct {
	SQL    string
	ID     string
	Mode   string // from the catalog entry; empty: the proxy's default
	Source Source
	// Database is the catalog entry's database restriction, if any.
	Database string
}

// Session holds a connection's pgequiv settings.
type Session struct {
	Reference   string
	ReferenceID string
}

// Apply updates the session with a SET/RESET command.
func (s *Session) Apply(cmd SessionCommand) {
	switch {
	case cmd.All:
		*s = Session{}
	case cmd.Name == SettingReference && cmd.Reset:
		s.Reference = ""
	case cmd.Name == SettingReference:
		s.Reference = cmd.Value
	case cmd.Name == SettingReferenceID && cmd.Reset:
		s.ReferenceID = ""
	case cmd.Name == SettingReferenceID:
		s.ReferenceID = cmd.Value
	}
}

// Resolve finds the reference for sql: a catalog match by fingerprint
// first, then its comment, then the session's settings. ok is false for
// an untagged query. An id that the catalog lacks is an error.
func Resolve(sql string, s *Session, c *Catalog) (ref Reference, ok bool, err error) {
	return ResolveIn(sql, s, c, "")
}

// ResolveIn is Resolve in database db: a catalog match for another
// database does not apply there. db "" takes every entry.
func ResolveIn(sql string, s *Session, c *Catalog, db string) (ref Reference, ok bool, err error) {
	cm, _, cerr := FindComment(sql)
	return resolve(sql, cm, cerr, s, c, db)
}

// Resolve finds the reference for the statement st of the Query text sql,
// as Resolve does for a whole text: its own comment, the session's
// settings, a catalog match of its own text.
func (st *Statement) Resolve(sql string, s *Session, c *Catalog) (ref Reference, ok bool, err error) {
	return st.ResolveIn(sql, s, c, "")
}

// ResolveIn is Statement.Resolve in database db (see ResolveIn).
func (st *Statement) ResolveIn(sql string, s *Session, c *Catalog, db string) (ref Reference, ok bool, err error) {
	text := sql[st.Start:st.End]
	if st.JudgedErr == nil && st.Judged != "" {
		// The judged text reads as the server reads the statement (E''
		// for backslash strings), which pg_query's fingerprint needs.
		text = st.Judged
	}
	return resolve(text, st.Comment, st.CommentErr, s, c, db)
}

func resolve(sql string, cm *Comment, cerr error, s *Session, c *Catalog, db string) (ref Reference, ok bool, err error) {
	// A catalog match comes first: the entry holds the query to its
	// reference whatever the client says, or a client could escape it
	// by tagging the query with itself or setting it as the session's
	// reference (issue 34, item 6).
	here := func(e *Entry) bool { return db == "" || e.Database == "" || e.Database == db }
	if e, found := c.Match(sql); found && here(e) {
		return Reference{SQL: e.Reference, ID: e.ID, Mode: e.Mode, Source: FromCatalogMatch, Database: e.Database}, true, nil
	}
	if e, found := c.MatchWithin(sql); found && here(e) {
		return Reference{SQL: e.Reference, ID: e.ID, Mode: e.Mode, Source: FromCatalogMatch, Database: e.Database}, true,
			fmt.Errorf("tag: %w (entry %q)", ErrWrappedMatch, e.ID)
	}
	if cerr != nil {
		return ref, false, cerr
	} else if cm != nil {
		if err := unknownKey(cm); err != nil {
			return ref, false, err
		}
		if v, has := cm.Get(KeyRef); has {
			return Reference{SQL: v, Source: FromComment}, true, nil
		}
		if id, has := cm.Get(KeyRefID); has {
			return byID(c, id, FromComment)
		}
	}
	if s != nil {
		if s.Reference != "" {
			return Reference{SQL: s.Reference, Source: FromSession}, true, nil
		}
		if s.ReferenceID != "" {
			return byID(c, s.ReferenceID, FromSession)
		}
	}
	return ref, false, nil
}

func byID(c *Catalog, id string, src Source) (Reference, bool, error) {
	e, ok := c.ByID(id)
	if !ok {
		return Reference{}, false, fmt.Errorf("tag: %w %q", ErrUnknownID, id)
	}
	return Reference{SQL: e.Reference, ID: e.ID, Mode: e.Mode, Source: src, Database: e.Database}, true, nil
}

// HasMatches reports whether some entry matches queries by fingerprint,
// so that untagged queries must be fingerprinted to find out.
func (c *Catalog) HasMatches() bool { return c != nil && len(c.byFP) > 0 }

// HasMode reports whether some entry has mode as its own mode.
func (c *Catalog) HasMode(mode string) bool {
	if c == nil {
		return false
	}
	for _, m := range []map[string]*Entry{c.byID, c.byFP} {
		for _, e := range m {
			if e.Mode == mode {
				return true
			}
		}
	}
	return false
}
