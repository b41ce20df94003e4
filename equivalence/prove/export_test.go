package prove

// SetDebug routes the prover's failure notes to f, for TestDebugSuite.
func SetDebug(f func(string, ...any)) { debugf = f }
