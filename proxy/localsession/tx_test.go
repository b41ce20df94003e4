package localsession

import "testing"

// TestTx: the status moves as PostgreSQL's does for the statements a
// local session answers.
func TestTx(t *testing.T) {
	var tx Tx
	if tx.Status() != 'I' || !tx.Idle() {
		t.Fatalf("zero Tx: %c", tx.Status())
	}
	tx.Fail() // an error outside a block changes nothing
	if tx.Status() != 'I' {
		t.Fatalf("error outside a block: %c", tx.Status())
	}
	tx.Begin()
	tx.Begin()
	if tx.Status() != 'T' {
		t.Fatalf("after BEGIN: %c", tx.Status())
	}
	tx.FailBatch()
	if tx.Status() != 'E' || !tx.Failed() || !tx.Skipping() {
		t.Fatalf("after an extended-protocol error: %c, skipping %v", tx.Status(), tx.Skipping())
	}
	tx.Sync()
	if tx.Skipping() || !tx.Failed() {
		t.Fatal("Sync must end skipping and keep the failed block")
	}
	tx.Recover()
	if tx.Status() != 'T' {
		t.Fatalf("after ROLLBACK TO: %c", tx.Status())
	}
	if tx.End() {
		t.Fatal("COMMIT of a healthy block reported a rollback")
	}
	tx.Begin()
	tx.Fail()
	if !tx.End() || tx.Status() != 'I' {
		t.Fatal("COMMIT of a failed block must roll back and end it")
	}
}
