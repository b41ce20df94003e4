package main

import (
	"time"

	"github.com/pgequiv/pgequiv/config"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy/dbfree"
)

// dbfreeSchema reads schema.files (PostgreSQL DDL, concatenated in order;
// paths relative to proxy.yaml) into one schema; with none it is the
// bundled example schema.
func dbfreeSchema(c *config.Config) (*catalog.Schema, error) {
	if len(c.Schema.Files) > 0 {
		return loadDDL(c, "schema.files", c.Schema.Files)
	}
	return catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
}

// dbfreeOptions builds the options of database-free mode (upstream:
// none), reading the schema, catalog and certificate files.
func dbfreeOptions(c *config.Config) (dbfree.Options, error) {
	po, err := proxyOptions(c)
	if err != nil {
		return dbfree.Options{}, err
	}
	s, err := dbfreeSchema(c)
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
	o.Judge.Refute = refuteOptions(c)
	if o.Judge.Adviser, err = adviser(c); err != nil {
		return dbfree.Options{}, err
	}
	if o.Judge.GMN, err = gmnModel(c); err != nil {
		return dbfree.Options{}, err
	}
	if o.Catalog, err = loadCatalog(c); err != nil {
		return dbfree.Options{}, err
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
