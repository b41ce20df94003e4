package proxy

import "time"

// The rows of the admin console's judging statements (JudgingView). They
// live here, with the console that shows them, because the judging
// observer (package proxy/judging) imports the proxy, not the other way.

// VerdictRecord is one judged query as the admin console lists it.
type VerdictRecord struct {
	Time        time.Time
	ConnID      uint64
	User        string
	Database    string
	ReferenceID string
	Source      string
	Mode        string
	Label       string
	Score       float64
	// Action: forwarded, refused, annotated, late or logged.
	Action  string
	Latency time.Duration
	Summary string // literals redacted unless log.literals
	Query   string // likewise
	// Counterexample is the database that tells the queries apart, as
	// INSERT statements and both results; likewise redacted.
	Counterexample string
	// QueryFingerprint is the candidate's pg_query fingerprint
	// (constants and layout aside).
	QueryFingerprint string
	// Reference is the reference's text, literals redacted unless
	// log.literals.
	Reference string
}

// Divergence is a group of verdicts with the same reference, candidate
// fingerprint and label: SHOW DIVERGENCES answers "which of my rewritten
// queries diverge, how often, since when?".
type Divergence struct {
	ReferenceID      string
	Reference        string // redacted as in SHOW VERDICTS
	QueryFingerprint string
	Label            string
	Count            uint64
	FirstSeen        time.Time
	LastSeen         time.Time
	Example          string // the latest query of the group, redacted
	Summary          string // its verdict's summary
}

// JudgeStat is one named counter.
type JudgeStat struct {
	Name  string
	Value uint64
}
