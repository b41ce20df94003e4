package judging

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/internal/sqltext"
	"github.com/pgequiv/pgequiv/proxy"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// ComponentBusy names why a statement answered unread under overload was
// not judged.
const ComponentBusy = "not judged: proxy busy"

// admission bounds how many statements the proxy reads at once (splits,
// classifies, fingerprints: pg_query's scanner and parser, the proxy's
// own heaviest work, about 100 ms of CPU for a 20,000-item IN list). 150
// clients sending such statements kept two cores busy reading them, so
// answers queued behind CPU for tens of seconds, far past the verdict
// timeout. With a bound, the rest wait without using CPU, and a tagged
// statement that has waited half its verdict timeout is answered unread
// ("not judged: the proxy was busy"), in the strictest mode its tag
// could name, as a statement over max_query_size is. An untagged
// statement (only a catalog match could apply) always waits for its turn:
// answering it unread would let it through unjudged.
type admission struct {
	slots chan struct{}
	// shed counts the statements answered unread.
	shed atomic.Uint64
}

// newAdmission returns an admission with n slots; n <= 0 means one fewer
// than GOMAXPROCS (at least one), which leaves a CPU to the relay.
func newAdmission(n int) *admission {
	if n <= 0 {
		n = max(1, runtime.GOMAXPROCS(0)-1)
	}
	return &admission{slots: make(chan struct{}, n)}
}

// enter takes a slot. A tagged statement waits until half its budget
// (timeout from arrived) is spent and then gets false; others wait as
// long as it takes.
func (a *admission) enter(arrived time.Time, timeout time.Duration, tagged bool) bool {
	select {
	case a.slots <- struct{}{}:
		return true
	default:
	}
	if !tagged {
		a.slots <- struct{}{}
		return true
	}
	wait := time.Until(arrived.Add(timeout / 2))
	if wait <= 0 {
		a.shed.Add(1)
		return false
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case a.slots <- struct{}{}:
		return true
	case <-t.C:
		a.shed.Add(1)
		return false
	}
}

// leave gives the slot back.
func (a *admission) leave() { <-a.slots }

// busy answers a tagged statement that got no slot in time.
func (j *Judging) busy(ctx context.Context, ev *proxy.QueryEvent, set *JudgeSettings, tags tag.Session, mentions bool, arrived time.Time) proxy.Action {
	v := equivalence.UnknownVerdict(equivalence.Difference{
		Component: ComponentBusy,
		Candidate: fmt.Sprintf("the proxy was busy reading other statements for %v of the %v verdict_timeout; not read",
			time.Since(arrived).Round(time.Millisecond), set.VerdictTimeout),
	})
	return j.answerUnread(ctx, ev, set, unreadReference(set, tags, mentions), mentions, tagsMode(set, ev), &v, arrived)
}

// tagsMode is the strictest mode the tag comments of ev's text name, read
// with the lexer alone (linear, no pg_query call: a fraction of what
// reading the statement costs), so that an annotate-mode statement is not
// refused because some catalog entry enforces; "" when that cannot be
// told (the session's string syntax is uncertain, the lexer rejects the
// text, a tag is malformed), and the caller assumes the strictest.
func tagsMode(set *JudgeSettings, ev *proxy.QueryEvent) JudgeMode {
	if ev.StringsUncertain {
		return ""
	}
	strs := sqltext.StandardStrings
	if ev.BackslashStrings {
		strs = sqltext.BackslashStrings
	}
	cms, err := tag.TagsIn(string(ev.SQL), strs)
	if err != nil || len(cms) == 0 {
		return ""
	}
	mode := set.Mode
	strictest := func(m JudgeMode) {
		if m == ModeEnforce || m == ModeAnnotate && mode == ModeLog {
			mode = m
		}
	}
	for _, c := range cms {
		if _, inline := c.Get(tag.KeyRef); inline {
			continue // the proxy's own mode
		}
		id, _ := c.Get(tag.KeyRefID)
		e, ok := set.Catalog.ByID(id)
		if !ok {
			return "" // an unknown id: Resolve's error, which the caller cannot name
		}
		if e.Mode != "" {
			strictest(JudgeMode(e.Mode))
		}
	}
	return mode
}
