package judging

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
)

// The settings that hold the introspection role's login, as the
// configuration file and environment name them (config.Introspect,
// config.EnvIntrospectPassword; a test keeps the two in step). The
// judging package does not import config: the wiring hands it plain
// values.
const (
	introspectUserKey     = "schema.introspect.user"
	introspectPasswordKey = "schema.introspect.password"
	introspectPasswordEnv = "PGEQUIV_INTROSPECT_PASSWORD"
)

// IntrospectAuthError is an introspection whose login the upstream
// refused (SQLSTATE 28P01 invalid_password, 28000
// invalid_authorization_specification). The role is the proxy's own,
// not the client's, so its message names the settings the operator
// sets: it reaches the proxy's log and, as "cannot judge: ...", the
// client's NOTICE and the verdict record.
type IntrospectAuthError struct {
	Database string
	Address  string // the upstream's host:port
	User     string
	// NoPassword: no password was configured.
	NoPassword bool
	Err        error
}

func (e *IntrospectAuthError) Error() string {
	fix := fmt.Sprintf("check %s and %s (or %s)", introspectUserKey, introspectPasswordKey, introspectPasswordEnv)
	if e.NoPassword {
		fix = fmt.Sprintf("no password is configured: set %s (or %s)", introspectPasswordKey, introspectPasswordEnv)
	}
	why := e.Err.Error()
	var pgErr *pgconn.PgError
	if errors.As(e.Err, &pgErr) {
		// The server's words and the condition's name rather than
		// pgx's text with the SQLSTATE: "28P01" is no token
		// PostgreSQL's lexer reads, and the verdict record and log
		// withhold an error text the lexer cannot read (sqltext.go),
		// which would hide the fix from SHOW VERDICTS.
		why = pgErr.Severity + ": " + pgErr.Message + "; " + loginConditions[pgErr.Code]
	}
	return fmt.Sprintf("introspect %s: the upstream at %s refused the login of the introspection role %q (%s); %s",
		e.Database, e.Address, e.User, why, fix)
}

// loginConditions are PostgreSQL's condition names of the SQLSTATEs of
// a refused login.
var loginConditions = map[string]string{
	"28P01": "invalid_password",
	"28000": "invalid_authorization_specification",
}

func (e *IntrospectAuthError) Unwrap() error { return e.Err }

// loginRefused reports whether the upstream refused a login: a wrong
// or missing password, or a role that does not exist or may not log in.
func loginRefused(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && loginConditions[pgErr.Code] != ""
}
