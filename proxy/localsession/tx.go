// Package localsession is what the proxy's two local PostgreSQL
// sessions share, the admin console (package proxy) and database-free
// mode (proxy/dbfree): sessions answered by pgequiv itself, where nothing
// is ever written, but whose transaction status drivers, ORMs and tools
// track as if a server answered.
//
// Tx is the transaction status; Store the prepared statements and
// portals; Session the simple and extended query protocols around them,
// calling back into each side's Handler for what its statements mean.
// Where the two sides answer differently on purpose, Rules says so.
package localsession

// Tx is a local session's transaction status, as ReadyForQuery reports
// it, and the extended protocol's error state. The zero Tx is idle.
//
// The status follows PostgreSQL's rules: BEGIN opens a block ('T'); an
// error in a block fails it ('E'), where statements are refused until
// COMMIT or ROLLBACK ends it ('I'; a COMMIT of a failed block rolls it
// back and says so); after an error in an extended-protocol batch the
// rest of the batch is skipped until Sync.
type Tx struct {
	status byte // 0 or 'I', 'T', 'E'
	// skipping: an error in an extended-protocol batch; messages are
	// dropped until Sync.
	skipping bool
}

// Status is the status for ReadyForQuery: 'I' idle, 'T' in a
// transaction block, 'E' in a failed one.
func (t *Tx) Status() byte {
	if t.status == 0 {
		return 'I'
	}
	return t.status
}

// Idle reports whether no transaction block is open.
func (t *Tx) Idle() bool { return t.Status() == 'I' }

// Failed reports whether the block failed: statements other than its
// end are refused (SQLSTATE 25P02).
func (t *Tx) Failed() bool { return t.status == 'E' }

// Begin opens a transaction block; inside one, BEGIN changes nothing.
func (t *Tx) Begin() {
	if t.Idle() {
		t.status = 'T'
	}
}

// End ends the block (COMMIT or ROLLBACK), reporting whether it had
// failed: a COMMIT then rolls back, and its command tag is ROLLBACK.
func (t *Tx) End() (failed bool) {
	failed = t.status == 'E'
	t.status = 'I'
	return failed
}

// Fail records an error: a block fails; outside one nothing changes.
func (t *Tx) Fail() {
	if t.status == 'T' {
		t.status = 'E'
	}
}

// Recover makes a failed block usable again (ROLLBACK TO SAVEPOINT).
func (t *Tx) Recover() { t.status = 'T' }

// FailBatch records an error in an extended-protocol batch: the block,
// if any, fails, and the batch is skipped until Sync.
func (t *Tx) FailBatch() {
	t.Fail()
	t.skipping = true
}

// Skipping reports whether messages are dropped until Sync.
func (t *Tx) Skipping() bool { return t.skipping }

// Sync ends the extended-protocol batch: messages are read again.
func (t *Tx) Sync() { t.skipping = false }
