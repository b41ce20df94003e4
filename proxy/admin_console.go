package proxy

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pgequiv/pgequiv/internal/buildinfo"
)

// Console is the admin console: SHOW HELP, SHOW VERDICTS, SHOW
// DIVERGENCES, SHOW STATS, SHOW CLIENTS, SHOW CONFIG, SHOW VERSION, RELOAD.
type Console struct {
	// Judging supplies verdicts and counters (judging.Judging);
	// nil shows none.
	Judging JudgingView
	// Config lists the settings in force as key/value pairs (secrets
	// hidden); nil shows none.
	Config func() [][2]string
	// Reload reloads the configuration as SIGHUP does.
	Reload func(ctx context.Context) error
	// Clients, if set, lists the clients for SHOW CLIENTS instead of the
	// server's own (database-free mode lists its connections).
	Clients func() []ClientInfo
}

// JudgingView is what the console shows of judging. The console only
// formats it; the judging observer (judging.Judging, in proxy/judging)
// decides what it holds.
type JudgingView interface {
	// RecentVerdicts are the latest verdicts, newest first (SHOW VERDICTS).
	RecentVerdicts() []VerdictRecord
	// Divergences are the verdict groups, most recently seen first
	// (SHOW DIVERGENCES).
	Divergences() []Divergence
	// Stats are the judging counters (SHOW STATS).
	Stats() []JudgeStat
}

// verdictColumn is one column of SHOW VERDICTS. A new column is one more
// entry in verdictColumns.
type verdictColumn struct {
	AdminColumn
	get func(*VerdictRecord) any
}

var verdictColumns = []verdictColumn{
	{AdminColumn{"time", AdminTimestamptz}, func(v *VerdictRecord) any { return v.Time }},
	{AdminColumn{"conn", AdminInt8}, func(v *VerdictRecord) any { return v.ConnID }},
	{AdminColumn{"user", AdminText}, func(v *VerdictRecord) any { return v.User }},
	{AdminColumn{"database", AdminText}, func(v *VerdictRecord) any { return v.Database }},
	{AdminColumn{"reference_id", AdminText}, func(v *VerdictRecord) any { return v.ReferenceID }},
	{AdminColumn{"source", AdminText}, func(v *VerdictRecord) any { return v.Source }},
	{AdminColumn{"mode", AdminText}, func(v *VerdictRecord) any { return v.Mode }},
	{AdminColumn{"label", AdminText}, func(v *VerdictRecord) any { return v.Label }},
	{AdminColumn{"score", AdminFloat8}, func(v *VerdictRecord) any { return round3(v.Score) }},
	{AdminColumn{"action", AdminText}, func(v *VerdictRecord) any { return v.Action }},
	{AdminColumn{"latency_ms", AdminFloat8}, func(v *VerdictRecord) any { return round3(float64(v.Latency.Microseconds()) / 1000) }},
	{AdminColumn{"summary", AdminText}, func(v *VerdictRecord) any { return v.Summary }},
	{AdminColumn{"query", AdminText}, func(v *VerdictRecord) any { return v.Query }},
	{AdminColumn{"query_fingerprint", AdminText}, func(v *VerdictRecord) any { return v.QueryFingerprint }},
	{AdminColumn{"reference", AdminText}, func(v *VerdictRecord) any { return v.Reference }},
	{AdminColumn{"counterexample", AdminText}, func(v *VerdictRecord) any { return v.Counterexample }},
}

// adminCommand is one statement of the console.
type adminCommand struct {
	name    string // upper case, words separated by one blank
	help    string // what it shows or does, for SHOW HELP
	filter  bool   // takes WHERE column = value [AND ...] [LIMIT n]
	columns []AdminColumn
	run     func(ctx context.Context, k *Console, srv *Server) (*AdminResult, error)
}

func columnsOf(names ...any) []AdminColumn {
	var cols []AdminColumn
	for i := 0; i < len(names); i += 2 {
		cols = append(cols, AdminColumn{names[i].(string), names[i+1].(AdminType)})
	}
	return cols
}

var adminCommands = []adminCommand{
	{name: "SHOW VERDICTS", help: "the latest verdicts, newest first", filter: true, columns: func() []AdminColumn {
		cols := make([]AdminColumn, len(verdictColumns))
		for i, c := range verdictColumns {
			cols[i] = c.AdminColumn
		}
		return cols
	}(), run: func(_ context.Context, k *Console, _ *Server) (*AdminResult, error) {
		res := &AdminResult{Tag: "SHOW"}
		if k.Judging != nil {
			for _, v := range k.Judging.RecentVerdicts() {
				row := make([]any, len(verdictColumns))
				for i, c := range verdictColumns {
					row[i] = c.get(&v)
				}
				res.Rows = append(res.Rows, row)
			}
		}
		return res, nil
	}},
	{name: "SHOW DIVERGENCES", help: "verdicts other than equivalent, grouped by reference and query fingerprint", filter: true, columns: columnsOf("reference_id", AdminText, "reference", AdminText,
		"query_fingerprint", AdminText, "label", AdminText, "count", AdminInt8, "first_seen", AdminTimestamptz,
		"last_seen", AdminTimestamptz, "example", AdminText, "summary", AdminText),
		run: func(_ context.Context, k *Console, _ *Server) (*AdminResult, error) {
			res := &AdminResult{Tag: "SHOW"}
			if k.Judging != nil {
				for _, d := range k.Judging.Divergences() {
					res.Rows = append(res.Rows, []any{d.ReferenceID, d.Reference, d.QueryFingerprint, d.Label, d.Count,
						d.FirstSeen, d.LastSeen, d.Example, d.Summary})
				}
			}
			return res, nil
		}},
	{name: "SHOW STATS", help: "the judging counters", filter: true, columns: columnsOf("name", AdminText, "value", AdminInt8),
		run: func(_ context.Context, k *Console, _ *Server) (*AdminResult, error) {
			res := &AdminResult{Tag: "SHOW"}
			if k.Judging != nil {
				for _, s := range k.Judging.Stats() {
					res.Rows = append(res.Rows, []any{s.Name, s.Value})
				}
			}
			return res, nil
		}},
	{name: "SHOW CLIENTS", help: "the client connections", filter: true, columns: columnsOf("conn", AdminInt8, "user", AdminText, "database", AdminText,
		"application_name", AdminText, "addr", AdminText, "state", AdminText, "since", AdminTimestamptz),
		run: func(_ context.Context, k *Console, srv *Server) (*AdminResult, error) {
			res := &AdminResult{Tag: "SHOW"}
			clients := srv.Clients
			if k.Clients != nil {
				clients = k.Clients
			}
			for _, c := range clients() {
				res.Rows = append(res.Rows, []any{c.ConnID, c.User, c.Database, c.ApplicationName, c.Addr, c.State,
					c.Since.Truncate(time.Second)})
			}
			return res, nil
		}},
	{name: "SHOW CONFIG", help: "the settings in force (secrets hidden)", filter: true, columns: columnsOf("key", AdminText, "value", AdminText),
		run: func(_ context.Context, k *Console, _ *Server) (*AdminResult, error) {
			res := &AdminResult{Tag: "SHOW"}
			if k.Config != nil {
				for _, kv := range k.Config() {
					res.Rows = append(res.Rows, []any{kv[0], kv[1]})
				}
			}
			return res, nil
		}},
	{name: "SHOW VERSION", help: "the version and VCS revision of this pgequiv, as pgequiv version prints them",
		columns: columnsOf("version", AdminText),
		run: func(context.Context, *Console, *Server) (*AdminResult, error) {
			return &AdminResult{Tag: "SHOW", Rows: [][]any{{buildinfo.Read().String()}}}, nil
		}},
	{name: "RELOAD", help: "reload the configuration file, as SIGHUP does", run: func(ctx context.Context, k *Console, _ *Server) (*AdminResult, error) {
		if k.Reload == nil {
			return nil, &AdminError{Code: pgCodeFeatureNotSupport, Message: "pgequiv: RELOAD is not available"}
		}
		if err := k.Reload(ctx); err != nil {
			return nil, &AdminError{Code: "F0000", Message: "pgequiv: reload failed; the running config is kept: " + err.Error()}
		}
		return &AdminResult{Tag: "RELOAD"}, nil
	}},
}

// SHOW HELP lists adminCommands, itself included; it is added in init
// because a command that reads adminCommands cannot be in its initializer.
func init() {
	adminCommands = append([]adminCommand{{
		name: "SHOW HELP", help: "this list",
		columns: columnsOf("command", AdminText, "description", AdminText),
		run: func(context.Context, *Console, *Server) (*AdminResult, error) {
			res := &AdminResult{Tag: "SHOW"}
			for _, c := range adminCommands {
				cmd := c.name
				if c.filter {
					cmd += " [WHERE column = 'value' [AND ...]] [LIMIT n]"
				}
				res.Rows = append(res.Rows, []any{cmd, c.help})
			}
			return res, nil
		},
	}}, adminCommands...)
}

// parse finds the command sql names and reads its filter.
func (k *Console) parse(sql string, params []string) (*adminCommand, *adminFilter, error) {
	words := strings.Fields(sql)
	for i := range adminCommands {
		cmd := &adminCommands[i]
		n := len(strings.Fields(cmd.name))
		if len(words) < n || !strings.EqualFold(strings.Join(words[:n], " "), cmd.name) {
			continue
		}
		rest := strings.TrimSpace(sql[wordsEnd(sql, n):])
		if rest == "" {
			return cmd, nil, nil
		}
		if !cmd.filter {
			break
		}
		f, err := parseAdminFilter(rest, cmd.columns, params)
		return cmd, f, err
	}
	return nil, nil, &AdminError{Code: pgCodeSyntaxError, Message: fmt.Sprintf(
		"pgequiv admin console: unknown command %q (SHOW HELP lists the commands: SHOW VERDICTS, SHOW DIVERGENCES, SHOW STATS, SHOW CLIENTS, SHOW CONFIG, SHOW VERSION, RELOAD; SHOW accepts WHERE column = 'value' [AND ...] [LIMIT n])", sql)}
}

// wordsEnd is the offset just past the first n blank-separated words.
func wordsEnd(s string, n int) int {
	i := 0
	for w := 0; w < n; w++ {
		for i < len(s) && isBlank(s[i]) {
			i++
		}
		for i < len(s) && !isBlank(s[i]) {
			i++
		}
	}
	return i
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// Describe implements AdminConsole.
func (k *Console) Describe(sql string) ([]AdminColumn, error) {
	cmd, _, err := k.parse(sql, nil)
	if err != nil {
		if _, isParamErr := err.(*adminParamError); !isParamErr {
			return nil, err
		}
	}
	return cmd.columns, nil
}

// Exec implements AdminConsole.
func (k *Console) Exec(ctx context.Context, srv *Server, _ *Session, sql string, params []string) (*AdminResult, error) {
	cmd, f, err := k.parse(sql, params)
	if err != nil {
		return nil, err
	}
	res, err := cmd.run(ctx, k, srv)
	if err != nil {
		return nil, err
	}
	res.Columns = cmd.columns
	if f != nil {
		res.Rows = f.apply(res.Rows)
	}
	return res, nil
}

// adminFilter keeps the rows whose columns equal the values (compared
// in text form), at most limit of them (negative: all).
type adminFilter struct {
	conds []adminCond
	limit int
}

type adminCond struct {
	col   int
	value string
}

func (f *adminFilter) apply(rows [][]any) [][]any {
	out := rows[:0]
	for _, row := range rows {
		if f.limit >= 0 && len(out) >= f.limit {
			break
		}
		keep := true
		for _, c := range f.conds {
			if adminText(row[c.col]) != c.value {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, row)
		}
	}
	return out
}

// adminParamError is a filter naming a parameter that has no value yet
// (a Describe before Bind).
type adminParamError struct{ AdminError }

// parseAdminFilter reads WHERE column = value [AND column = value ...]
// [LIMIT n]. A value is a quoted string, a number or a parameter $n.
func parseAdminFilter(s string, cols []AdminColumn, params []string) (*adminFilter, error) {
	toks, err := adminTokens(s)
	if err != nil {
		return nil, err
	}
	f := &adminFilter{limit: -1}
	bad := func(msg string) error {
		return &AdminError{Code: pgCodeSyntaxError, Message: "pgequiv admin console: " + msg + " (expected WHERE column = 'value' [AND ...] [LIMIT n])"}
	}
	value := func(t string) (string, error) {
		switch {
		case strings.HasPrefix(t, "'"):
			return strings.ReplaceAll(t[1:len(t)-1], "''", "'"), nil
		case strings.HasPrefix(t, "$"):
			n, err := strconv.Atoi(t[1:])
			if err != nil || n < 1 {
				return "", bad("bad parameter " + t)
			}
			if n > len(params) {
				return "", &adminParamError{AdminError{Code: "08P01", Message: fmt.Sprintf("pgequiv admin console: no value for parameter $%d", n)}}
			}
			return params[n-1], nil
		case t != "" && (t[0] >= '0' && t[0] <= '9' || t[0] == '-'):
			return t, nil
		}
		return "", bad("expected a value, got " + strconv.Quote(t))
	}
	i := 0
	if i < len(toks) && strings.EqualFold(toks[i], "WHERE") {
		for {
			if i+3 >= len(toks) {
				return nil, bad("incomplete condition")
			}
			name, eq := strings.ToLower(strings.Trim(toks[i+1], `"`)), toks[i+2]
			if eq != "=" {
				return nil, bad("only = is supported")
			}
			col := -1
			for ci, c := range cols {
				if c.Name == name {
					col = ci
				}
			}
			if col < 0 {
				return nil, &AdminError{Code: "42703", Message: fmt.Sprintf("pgequiv admin console: column %q does not exist", name)}
			}
			v, err := value(toks[i+3])
			if err != nil {
				return nil, err
			}
			f.conds = append(f.conds, adminCond{col: col, value: v})
			i += 4
			if i < len(toks) && strings.EqualFold(toks[i], "AND") {
				continue
			}
			break
		}
	}
	if i < len(toks) && strings.EqualFold(toks[i], "LIMIT") {
		if i+1 >= len(toks) {
			return nil, bad("LIMIT needs a number")
		}
		v, err := value(toks[i+1])
		if err != nil {
			return nil, err
		}
		if f.limit, err = strconv.Atoi(v); err != nil || f.limit < 0 {
			return nil, bad("LIMIT needs a number")
		}
		i += 2
	}
	if i != len(toks) {
		return nil, bad("unexpected " + strconv.Quote(toks[i]))
	}
	return f, nil
}

// adminTokens splits a filter into words, quoted strings (kept with
// their quotes), parameters and "=".
func adminTokens(s string) ([]string, error) {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case isBlank(c):
			i++
		case c == '=':
			out = append(out, "=")
			i++
		case c == '\'':
			j := i + 1
			for {
				if j >= len(s) {
					return nil, &AdminError{Code: pgCodeSyntaxError, Message: "pgequiv admin console: unterminated quoted string"}
				}
				if s[j] == '\'' {
					if j+1 < len(s) && s[j+1] == '\'' {
						j += 2
						continue
					}
					break
				}
				j++
			}
			out = append(out, s[i:j+1])
			i = j + 1
		default:
			j := i
			for j < len(s) && !isBlank(s[j]) && s[j] != '=' && s[j] != '\'' {
				j++
			}
			out = append(out, s[i:j])
			i = j
		}
	}
	return out, nil
}

// countParams is the highest parameter number $n in sql outside quoted
// strings.
func countParams(sql string) int {
	n, quoted := 0, false
	for i := 0; i < len(sql); i++ {
		switch {
		case sql[i] == '\'':
			quoted = !quoted
		case !quoted && sql[i] == '$':
			j := i + 1
			for j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
				j++
			}
			if k, err := strconv.Atoi(sql[i+1 : j]); err == nil {
				n = max(n, k)
			}
		}
	}
	return n
}
