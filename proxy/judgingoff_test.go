package proxy_test

import (
	"github.com/pgequiv/pgequiv/proxy"
	"github.com/pgequiv/pgequiv/proxy/judging"
)

func init() {
	proxy.NewJudgingOff = func() (proxy.QueryObserver, error) {
		j, err := judging.NewJudging(judging.JudgeSettings{Mode: judging.ModeOff}, judging.JudgingOptions{})
		if err != nil {
			return nil, err
		}
		return j, nil
	}
}
