package dbfree

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"

	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/pgcatalog"
)

// Clients' introspection queries (psql's \d family, pgcli's completion
// queries, SQLAlchemy's inspect(), drivers' type probes) read pg_catalog
// and information_schema. They are answered by running them, with the
// plan executor, over system tables generated from the loaded schema
// (package planner/pgcatalog): a query that reads only system relations
// is never judged, whatever tag or session reference it carries.

// analyze is analyze(sql) with catalog queries answered: a statement
// that would otherwise be refused or judged, and reads only system
// relations, becomes a local answer computed now (the catalog never
// changes under a connection).
func (c *conn) analyze(sql string) (*statement, *pgError) {
	st, err := analyze(sql)
	if err != nil || st.kind != kindOther || st.multi || st.parseErr != nil || !pgcatalog.Reads(sql) {
		return st, err
	}
	var params []*string
	if st.nParams > 0 {
		// Parameters come with Bind: run now with NULLs for the row
		// description, and again at Execute with the values.
		params = make([]*string, st.nParams)
	}
	lq, perr := c.catalogQuery(sql, params)
	if perr != nil {
		return nil, perr
	}
	if st.nParams > 0 {
		lq.bound = func(c *conn, values [][]byte) ([][]*string, *pgError) {
			ps := make([]*string, len(values))
			for k, v := range values {
				if v != nil {
					ps[k] = strp(string(v))
				}
			}
			res, perr := c.catalogQuery(sql, ps)
			if perr != nil {
				return nil, perr
			}
			return res.rows(c), nil
		}
	}
	st.kind, st.local = kindLocal, lq
	return st, nil
}

// catalogQuery plans and runs sql over the connection's system catalog,
// with $n bound to params[n-1] (text form; nil for NULL).
func (c *conn) catalogQuery(sql string, params []*string) (*localQuery, *pgError) {
	if c.sysCat == nil {
		cat, err := pgcatalog.New(c.opts.Schema, c.user, c.database)
		if err != nil {
			c.log.Error("building the system catalog", "err", err)
			return nil, errorf("XX000", "pgequiv: %v", err)
		}
		c.sysCat = cat
	}
	res, err := c.sysCat.QueryParams(c.ctx, sql, params)
	if err != nil {
		code := codeFeatureNotSupported
		if errors.Is(err, exec.ErrQuery) {
			code = "22023"
		}
		c.log.Debug("catalog query not answered", "err", err)
		return nil, errorf(code, "pgequiv: catalog query not answered: %v", err)
	}
	lq := &localQuery{rows: func(*conn) [][]*string { return res.Rows }}
	for _, col := range res.Columns {
		lq.cols = append(lq.cols, localCol{name: col.Name, oid: col.OID})
	}
	return lq, nil
}

// binaryParamText is a catalog query parameter sent in binary format
// (pgjdbc sends setLong/setInt values so: DBeaver binds OIDs with
// setLong) in the text form the catalog query reads, for the types
// clients bind in catalog queries; false for others.
func binaryParamText(oid uint32, v []byte) (string, bool) {
	switch oid {
	case 21: // int2
		if len(v) == 2 {
			return strconv.Itoa(int(int16(binary.BigEndian.Uint16(v)))), true
		}
	case 23: // int4
		if len(v) == 4 {
			return strconv.Itoa(int(int32(binary.BigEndian.Uint32(v)))), true
		}
	case 26: // oid
		if len(v) == 4 {
			return strconv.FormatUint(uint64(binary.BigEndian.Uint32(v)), 10), true
		}
	case 20: // int8
		if len(v) == 8 {
			return strconv.FormatInt(int64(binary.BigEndian.Uint64(v)), 10), true
		}
	case 16: // bool
		if len(v) == 1 {
			return map[bool]string{true: "t", false: "f"}[v[0] != 0], true
		}
	case 700: // float4
		if len(v) == 4 {
			return strconv.FormatFloat(float64(math.Float32frombits(binary.BigEndian.Uint32(v))), 'g', -1, 32), true
		}
	case 701: // float8
		if len(v) == 8 {
			return strconv.FormatFloat(math.Float64frombits(binary.BigEndian.Uint64(v)), 'g', -1, 64), true
		}
	case 25, 1043, 19, 1042, 18: // text, varchar, name, bpchar, "char": the same bytes
		return string(v), true
	}
	return "", false
}
