package judging

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// A search_path set by ALTER ROLE ... SET or ALTER DATABASE ... SET
// (pg_db_role_setting) applies from login, with no statement the proxy
// could read: a session whose login role has one may resolve names in
// another schema than the introspecting role, whose view of the
// database is the one judged (issue 34, item 4). Introspection reads
// these settings; enforce mode refuses judged statements of a session
// whose effective login search_path differs from the introspecting
// role's in the same database.

// rolePaths are the search_path settings of pg_db_role_setting, by
// database and role ("" for a setting of every database or every role),
// and the role that introspected.
type rolePaths struct {
	byKey map[rolePathKey]string
	self  string // current_user of the introspection
}

type rolePathKey struct{ db, role string }

const rolePathQuery = `
SELECT COALESCE(d.datname, ''), COALESCE(r.rolname, ''), substr(c, length('search_path=') + 1), current_user
  FROM pg_db_role_setting s
  LEFT JOIN pg_database d ON d.oid = s.setdatabase
  LEFT JOIN pg_roles r ON r.oid = s.setrole
  CROSS JOIN LATERAL unnest(s.setconfig) AS c
 WHERE lower(c) LIKE 'search\_path=%'
UNION ALL
SELECT NULL, NULL, NULL, current_user`

// readRolePaths reads the search_path settings of pg_db_role_setting.
func readRolePaths(ctx context.Context, conn *pgx.Conn) (*rolePaths, error) {
	rows, err := conn.Query(ctx, rolePathQuery)
	if err != nil {
		return nil, fmt.Errorf("role search_path settings: %w", err)
	}
	defer rows.Close()
	rp := &rolePaths{byKey: map[rolePathKey]string{}}
	for rows.Next() {
		var db, role, path *string
		var self string
		if err := rows.Scan(&db, &role, &path, &self); err != nil {
			return nil, fmt.Errorf("role search_path settings: %w", err)
		}
		rp.self = self
		if db != nil && role != nil && path != nil {
			rp.byKey[rolePathKey{*db, *role}] = *path
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("role search_path settings: %w", err)
	}
	return rp, nil
}

// effective is the search_path a login of role to db starts with, as
// PostgreSQL picks it: the role's setting in that database, else the
// role's, else the database's; ok is false for the server's default.
func (rp *rolePaths) effective(db, role string) (path string, ok bool) {
	for _, k := range []rolePathKey{{db, role}, {"", role}, {db, ""}} {
		if p, found := rp.byKey[k]; found {
			return p, true
		}
	}
	return "", false
}

// why names how a login of role to db resolves names otherwise than the
// introspection did, or "".
func (rp *rolePaths) why(db, role string) string {
	if rp == nil || role == rp.self {
		return ""
	}
	mine, mineSet := rp.effective(db, role)
	theirs, theirsSet := rp.effective(db, rp.self)
	if mineSet == theirsSet && strings.TrimSpace(mine) == strings.TrimSpace(theirs) {
		return ""
	}
	return fmt.Sprintf("its login role %q has another search_path in this database (ALTER ROLE/DATABASE ... SET) than the role %q the schema was read as", role, rp.self)
}
