package spidereval

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/catalog/sqlitefile"
	"github.com/pgequiv/pgequiv/planner/catalog/tablesjson"
)

// Where a schema came from.
const (
	SourceSQLite = "sqlite"
	SourceTables = "tables.json"
	// SourceFallback: Schemas.Fallback served it.
	SourceFallback = "fallback"
)

// Schemas serves each database's schema from its SQLite file,
// <DBDir>/<db>/<db>.sqlite as Spider and BIRD lay them out, when there is
// one, else from tables.json. The file wins because it is the database
// the gold queries ran on: its DDL keeps composite primary keys, NOT
// NULL, UNIQUE and declared types, all of which tables.json flattens or
// drops. Both are read once per database; Schemas is safe for concurrent
// use.
type Schemas struct {
	Tables *tablesjson.File // nil: none
	DBDir  string           // "": none
	// Fallback serves the databases neither DBDir nor Tables has (eval's
	// flattened schemas/ directory); nil: none.
	Fallback interface {
		Get(db string, d catalog.Dialect) (*catalog.Schema, error)
	}

	mu    sync.Mutex
	cache map[string]served
}

type served struct {
	s       *catalog.Schema
	source  string
	dropped []string
	err     error
}

// ErrNoSchema says a database is in neither source.
var ErrNoSchema = errors.New("no schema")

// Get implements evaluation.SchemaSource. A SQLite file's schema is
// always SQLite's; d applies to tables.json.
func (s *Schemas) Get(db string, d catalog.Dialect) (*catalog.Schema, error) {
	r := s.get(db, d)
	return r.s, r.err
}

// Source says which source served db ("sqlite" or "tables.json") and the
// constraints it left out because they cannot hold.
func (s *Schemas) Source(db string) (string, []string) {
	r := s.get(db, catalog.SQLite)
	return r.source, r.dropped
}

func (s *Schemas) get(db string, d catalog.Dialect) served {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := db + "/" + d.String()
	if r, ok := s.cache[key]; ok {
		return r
	}
	r := s.load(db, d)
	if s.cache == nil {
		s.cache = map[string]served{}
	}
	s.cache[key] = r
	return r
}

func (s *Schemas) load(db string, d catalog.Dialect) served {
	var tried []string
	if s.DBDir != "" {
		path := filepath.Join(s.DBDir, db, db+".sqlite")
		if _, err := os.Stat(path); err == nil {
			f, err := sqlitefile.Load(context.Background(), path)
			if err != nil {
				return served{err: fmt.Errorf("schema of db %q: %w", db, err)}
			}
			return served{s: f.Schema, source: SourceSQLite, dropped: f.Dropped}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return served{err: fmt.Errorf("schema of db %q: %w", db, err)}
		}
		tried = append(tried, path)
	}
	if s.Tables != nil {
		if s.Tables.Has(db) {
			sc, err := s.Tables.Schema(db, d)
			if err != nil {
				return served{err: fmt.Errorf("schema of db %q: %w", db, err)}
			}
			return served{s: sc, source: SourceTables}
		}
		tried = append(tried, s.Tables.Path)
	}
	if s.Fallback != nil {
		sc, err := s.Fallback.Get(db, d)
		if err != nil {
			return served{err: err}
		}
		return served{s: sc, source: SourceFallback}
	}
	return served{err: fmt.Errorf("%w for db %q: not in %q", ErrNoSchema, db, tried)}
}
