package judging

import (
	"cmp"
	"github.com/pgequiv/pgequiv/proxy"
	"slices"
	"sync"
	"time"
)

// maxDivergences bounds the groups kept; past it, the group seen least
// recently makes room.
const maxDivergences = 1024

type divKey struct{ ref, fingerprint, label string }

type divergences struct {
	mu     sync.Mutex
	groups map[divKey]*proxy.Divergence
}

func (d *divergences) add(v *proxy.VerdictRecord) {
	ref := v.ReferenceID
	if ref == "" {
		ref = "\x00" + v.Reference
	}
	k := divKey{ref, v.QueryFingerprint, v.Label}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.groups == nil {
		d.groups = map[divKey]*proxy.Divergence{}
	}
	g, ok := d.groups[k]
	if !ok {
		if len(d.groups) >= maxDivergences {
			var oldest divKey
			var at time.Time
			for gk, gv := range d.groups {
				if at.IsZero() || gv.LastSeen.Before(at) {
					oldest, at = gk, gv.LastSeen
				}
			}
			delete(d.groups, oldest)
		}
		g = &proxy.Divergence{ReferenceID: v.ReferenceID, Reference: v.Reference, QueryFingerprint: v.QueryFingerprint,
			Label: v.Label, FirstSeen: v.Time}
		d.groups[k] = g
	}
	g.Count++
	if v.Time.Before(g.FirstSeen) {
		g.FirstSeen = v.Time
	}
	if !v.Time.Before(g.LastSeen) {
		g.LastSeen, g.Example, g.Summary = v.Time, v.Query, v.Summary
	}
}

// Divergences returns the verdict groups, most recently seen first.
func (j *Judging) Divergences() []proxy.Divergence {
	j.div.mu.Lock()
	out := make([]proxy.Divergence, 0, len(j.div.groups))
	for _, g := range j.div.groups {
		out = append(out, *g)
	}
	j.div.mu.Unlock()
	slices.SortFunc(out, func(a, b proxy.Divergence) int {
		return cmp.Or(b.LastSeen.Compare(a.LastSeen), cmp.Compare(a.ReferenceID, b.ReferenceID),
			cmp.Compare(a.QueryFingerprint, b.QueryFingerprint), cmp.Compare(a.Label, b.Label))
	})
	return out
}

// remember keeps a verdict for SHOW VERDICTS and SHOW DIVERGENCES
// (appendFile writes it to the verdict log).
func (j *Judging) remember(rec proxy.VerdictRecord) {
	j.ring.add(rec)
	j.div.add(&rec)
}

// appendFile appends rec to the verdict log, if one is configured.
func (j *Judging) appendFile(rec *proxy.VerdictRecord) {
	if j.vfile == nil {
		return
	}
	if err := j.vfile.Append(rec); err != nil {
		j.stats.verdictLogErrors.Add(1)
		j.log.Warn("pgequiv: cannot append to the verdict log", "error", err)
	}
}
