package judgepool

import (
	"context"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence"
)

type nullAdviser struct{}

func (nullAdviser) Advise(context.Context, equivalence.AdviceRequest) (equivalence.Opinion, error) {
	return equivalence.Opinion{}, nil
}

// An adviser (the LLM judge) cannot cross to a worker process; it is
// refused rather than silently dropped.
func TestToWireRefusesAdviser(t *testing.T) {
	if _, err := toWire(equivalence.Options{Adviser: nullAdviser{}}); err == nil || !strings.Contains(err.Error(), "judge_isolation: none") {
		t.Errorf("toWire with an adviser: %v", err)
	}
	if _, err := toWire(equivalence.Options{}); err != nil {
		t.Errorf("toWire without one: %v", err)
	}
}
