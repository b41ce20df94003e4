package config

import (
	"fmt"
	"time"

	gmnmodel "github.com/pgequiv/pgequiv/gmn/model"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy/dbfree"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// dbfreeSchema reads schema.files (PostgreSQL DDL, concatenated in order;
// paths relative to proxy.yaml) into one schema; with none it is the
// bundled example schema.
func (c *Config) dbfreeSchema() (*catalog.Schema, error) {
	if len(c.Schema.Files) > 0 {
		return c.loadDDL("schema.files", c.Schema.Files)
	}
	return catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
}

// DBFreeOptions builds the options of database-free mode (upstream: none),
// reading the schema, catalog and certificate files. Errors here count as
// invalid config.
func (c *Config) DBFreeOptions() (dbfree.Options, error) {
	po, err := c.ProxyOptions()
	if err != nil {
		return dbfree.Options{}, err
	}
	s, err := c.dbfreeSchema()
	if err != nil {
		return dbfree.Options{}, err
	}
	o := dbfree.Options{
		Schema:         s,
		Password:       c.Password,
		ClientTLS:      po.ClientTLS,
		MaxMessageSize: int(c.MaxMessageSize),
		StartupTimeout: c.StartupTimeout,
		VerdictTimeout: c.VerdictTimeout,

		MaxClientConn:         c.MaxClientConn,
		ClientIdleTimeout:     offIfZero(c.ClientIdleTimeout),
		ClientReadTimeout:     offIfZero(c.ClientReadTimeout),
		MaxPreparedStatements: c.MaxPreparedStatements,
		MaxPreparedBytes:      int(c.MaxPreparedBytes),
	}
	o.Judge.MaxQueryBytes = int(c.MaxQuerySize)
	o.Judge.Refute = c.RefuteOptions()
	if o.Judge.Adviser, err = c.adviser(); err != nil {
		return dbfree.Options{}, err
	}
	if c.GMN {
		if o.Judge.GMN, err = gmnmodel.Default(); err != nil {
			return dbfree.Options{}, fmt.Errorf("config: gmn: %w", err)
		}
	}
	if c.Catalog != "" {
		if o.Catalog, err = tag.LoadCatalog(c.path(c.Catalog)); err != nil {
			return dbfree.Options{}, fmt.Errorf("config: catalog: %w", err)
		}
	}
	return o, nil
}

// offIfZero maps the file's 0 (off) to dbfree's negative (off); dbfree's 0
// means its default.
func offIfZero(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}
