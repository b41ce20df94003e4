package judgepool

import "context"

// WorkerPIDs returns the pids of the pool's worker processes, waiting for
// restarts in progress: it holds every worker at once.
func WorkerPIDs(p *Pool) []int {
	var held []*worker
	var pids []int
	for range p.workers {
		w, err := p.acquire(context.Background(), 0)
		if err != nil {
			break
		}
		held = append(held, w)
		pids = append(pids, w.proc.pid)
	}
	for _, w := range held {
		p.release(w)
	}
	return pids
}

// Busy returns the number of workers held by judgements or restarts.
func Busy(p *Pool) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, w := range p.workers {
		if !w.idle {
			n++
		}
	}
	return n
}

// Waiting returns the number of judgements queued for a worker.
func Waiting(p *Pool) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.waiters)
}
