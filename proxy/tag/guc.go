package tag

import "strings"

// Settings are a connection's pgequiv settings with PostgreSQL's
// semantics for them (guc.c): a SET inside a transaction is undone if the
// transaction rolls back (or a savepoint it follows is rolled back to); a
// SET LOCAL lasts to the end of the transaction; RESET returns to the
// value the connection started with (startup options), not to empty.
//
// Each transaction level (the transaction, then each savepoint) keeps the
// values in force when it began, and the transaction keeps the values a
// commit makes permanent: SET changes both, SET LOCAL only those in force.
type Settings struct {
	// Cur are the values in force.
	Cur Session
	// Reset are the values RESET returns to: the startup options'.
	Reset Session
	// commit are the values a commit keeps; meaningful inside a
	// transaction.
	commit Session
	levels []settingsLevel
}

type settingsLevel struct {
	savepoint string // "" for the transaction itself
	cur       Session
	commit    Session
}

// NewSettings returns settings that start (and reset) with startup.
func NewSettings(startup Session) Settings {
	return Settings{Cur: startup, Reset: startup}
}

// InTransaction reports whether a transaction level is open.
func (s *Settings) InTransaction() bool { return len(s.levels) > 0 }

// Begin opens the transaction (no-op inside one).
func (s *Settings) Begin() {
	if len(s.levels) == 0 {
		s.levels = append(s.levels, settingsLevel{cur: s.Cur, commit: s.Cur})
		s.commit = s.Cur
	}
}

// Apply applies a SET or RESET. local is SET LOCAL: outside a
// transaction it has no effect, as PostgreSQL warns. Outside a
// transaction the change is permanent; inside, a rollback undoes it.
func (s *Settings) Apply(cmd SessionCommand, local bool) {
	if local && len(s.levels) == 0 {
		return
	}
	set := func(v *Session) {
		switch {
		case cmd.All:
			*v = s.Reset
		case cmd.Reset:
			v.set(cmd.Name, s.Reset.Value(cmd.Name))
		default:
			v.set(cmd.Name, cmd.Value)
		}
	}
	set(&s.Cur)
	if !local {
		set(&s.commit)
	}
}

func (v *Session) set(name, value string) {
	switch name {
	case SettingReference:
		v.Reference = value
	case SettingReferenceID:
		v.ReferenceID = value
	}
}

// Savepoint opens a savepoint level (no-op outside a transaction, where
// PostgreSQL refuses SAVEPOINT).
func (s *Settings) Savepoint(name string) {
	if len(s.levels) > 0 {
		s.levels = append(s.levels, settingsLevel{savepoint: name, cur: s.Cur, commit: s.commit})
	}
}

// find returns the innermost savepoint level called name, or -1.
func (s *Settings) find(name string) int {
	for i := len(s.levels) - 1; i > 0; i-- {
		if s.levels[i].savepoint == name {
			return i
		}
	}
	return -1
}

// RollbackTo restores the values the savepoint began with; the savepoint
// stays, the ones after it go. An unknown savepoint was opened before the
// proxy watched the connection, when no pgequiv setting had changed in
// the transaction: the values go back to the transaction's.
func (s *Settings) RollbackTo(name string) {
	if len(s.levels) == 0 {
		return
	}
	i := s.find(name)
	if i < 0 {
		s.Cur, s.commit = s.levels[0].cur, s.levels[0].commit
		return
	}
	s.Cur, s.commit = s.levels[i].cur, s.levels[i].commit
	s.levels = s.levels[:i+1]
}

// Release ends a savepoint and the ones after it, keeping the values.
func (s *Settings) Release(name string) {
	if i := s.find(name); i > 0 {
		s.levels = s.levels[:i]
	}
}

// End closes the transaction: a commit keeps the values of SETs (not of
// SET LOCALs), a rollback restores the values it began with.
func (s *Settings) End(commit bool) {
	if len(s.levels) == 0 {
		return
	}
	if commit {
		s.Cur = s.commit
	} else {
		s.Cur = s.levels[0].cur
	}
	s.levels = nil
}

// StartupSettings reads pgequiv settings from a startup message's
// parameters: given directly (pgequiv.reference=...) or in options as
// -c name=value or --name=value (PGOPTIONS), with PostgreSQL's backslash
// escapes in options. Later ones win, as in the server.
func StartupSettings(params map[string]string) Session {
	var s Session
	for _, name := range []string{SettingReference, SettingReferenceID} {
		if v, ok := params[name]; ok {
			s.set(name, v)
		}
	}
	args := splitOptions(params["options"])
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-c" && i+1 < len(args):
			i++
			a = args[i]
		case strings.HasPrefix(a, "-c"):
			a = a[2:]
		case strings.HasPrefix(a, "--"):
			a = a[2:]
		default:
			continue
		}
		name, value, ok := strings.Cut(a, "=")
		if !ok {
			continue
		}
		// The server reads a dash in a name given this way as an
		// underscore (ParseLongOption).
		name = strings.ToLower(strings.ReplaceAll(name, "-", "_"))
		s.set(name, value)
	}
	return s
}

// splitOptions splits a startup options string as the server does
// (pg_split_opts): on whitespace, a backslash escaping the next byte.
func splitOptions(opts string) []string {
	var out []string
	var b strings.Builder
	in := false
	for i := 0; i < len(opts); i++ {
		c := opts[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			if in {
				out = append(out, b.String())
				b.Reset()
				in = false
			}
		case c == '\\' && i+1 < len(opts):
			i++
			b.WriteByte(opts[i])
			in = true
		default:
			b.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, b.String())
	}
	return out
}
