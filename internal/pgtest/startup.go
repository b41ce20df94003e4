package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// Startup is what a server answered a raw StartupMessage with, up to its
// first ReadyForQuery.
type Startup struct {
	// Negotiate is the NegotiateProtocolVersion received, if any.
	Negotiate *pgproto3.NegotiateProtocolVersion
	// Key is the BackendKeyData's secret.
	Key []byte
	// Rows is how many rows the query returned.
	Rows int
}

// StartupRequest is a raw startup for StartupVersion.
type StartupRequest struct {
	Addr, User string
	// Minor is the protocol minor version asked for (3.Minor).
	Minor uint32
	// Params are more startup parameters (database, _pq_ options).
	Params map[string]string
	// Query is run after startup and must not fail; default "SELECT 1".
	Query string
}

// StartupVersion connects to r.Addr without TLS, sends a StartupMessage
// for r.User with protocol version 3.r.Minor and r.Params, trusting
// authentication, reads until ReadyForQuery and runs r.Query. pgx asks
// only for 3.0 or 3.2; this asks for any version, as newer libpq versions
// may.
func StartupVersion(ctx context.Context, r StartupRequest) (*Startup, error) {
	if r.Query == "" {
		r.Query = "SELECT 1"
	}
	addr, user, minor, params := r.Addr, r.User, r.Minor, r.Params
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = nc.SetDeadline(dl)
	} else {
		_ = nc.SetDeadline(time.Now().Add(30 * time.Second))
	}
	fe := pgproto3.NewFrontend(nc, nc)
	p := map[string]string{"user": user, "database": Database}
	for k, v := range params {
		p[k] = v
	}
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: 3<<16 | minor, Parameters: p})
	if err := fe.Flush(); err != nil {
		return nil, err
	}
	var res Startup
	for ready := false; !ready; {
		msg, err := fe.Receive()
		if err != nil {
			return nil, err
		}
		switch m := msg.(type) {
		case *pgproto3.NegotiateProtocolVersion:
			if res.Negotiate != nil {
				return nil, errors.New("pgtest: a second NegotiateProtocolVersion")
			}
			c := *m
			c.UnrecognizedOptions = append([]string(nil), m.UnrecognizedOptions...)
			res.Negotiate = &c
		case *pgproto3.BackendKeyData:
			res.Key = append([]byte(nil), m.SecretKey...)
		case *pgproto3.ErrorResponse:
			return nil, fmt.Errorf("pgtest: startup: %s %s: %s", m.Severity, m.Code, m.Message)
		case *pgproto3.ReadyForQuery:
			ready = true
		}
	}
	fe.Send(&pgproto3.Query{String: r.Query})
	if err := fe.Flush(); err != nil {
		return nil, err
	}
	for {
		msg, err := fe.Receive()
		if err != nil {
			return nil, err
		}
		switch m := msg.(type) {
		case *pgproto3.DataRow:
			res.Rows++
		case *pgproto3.ErrorResponse:
			return nil, fmt.Errorf("pgtest: %s: %s: %s", r.Query, m.Code, m.Message)
		case *pgproto3.ReadyForQuery:
			return &res, nil
		}
	}
}
