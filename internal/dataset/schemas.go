package dataset

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// SchemaDir loads the schemas of a pair file's databases, <Dir>/<db>.sql,
// once per database and dialect; it is safe for concurrent use.
type SchemaDir struct {
	Dir   string
	mu    sync.Mutex
	cache map[string]*catalog.Schema
}

// Get returns the schema of db under dialect d.
func (s *SchemaDir) Get(db string, d catalog.Dialect) (*catalog.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := db + "/" + d.String()
	if sc, ok := s.cache[key]; ok {
		return sc, nil
	}
	ddl, err := os.ReadFile(filepath.Join(s.Dir, db+".sql"))
	if err != nil {
		return nil, fmt.Errorf("schema of db %q: %w", db, err)
	}
	sc, err := catalog.LoadDDL(string(ddl), d)
	if err != nil {
		return nil, fmt.Errorf("schema of db %q: %w", db, err)
	}
	if s.cache == nil {
		s.cache = map[string]*catalog.Schema{}
	}
	s.cache[key] = sc
	return sc, nil
}
