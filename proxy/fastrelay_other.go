//go:build !linux

package proxy

// fastLoops is empty where there is no fast relay.
type fastLoops struct{}

// fastConn is never made where there is no fast relay.
type fastConn struct{}

func (*fastConn) abort() {}

// relayFast never takes a connection where there is no fast relay: the
// goroutine relay serves them all.
func (c *conn) relayFast(StatementFilter) bool { return false }
