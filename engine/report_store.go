package engine

import (
	"errors"
	"time"

	"github.com/gridtui/gridtui/jobs"
)

// errNoStore is reported while the results store (jobs.RunRecord) is not
// wired in.
var errNoStore = errors.New("engine: run not recorded: results store not implemented yet")

// gainCurve is a single-node reference run: its wall time and its residual
// history, for the live computing-gain estimate.
type gainCurve struct {
	t1   time.Duration
	hist []sigmaAt
}

type sigmaAt struct {
	At    time.Duration
	Sigma float64
}

// gain estimates C_g live: the time the single-node run needed to reach
// sigma, divided by elapsed; 0 when the reference never got there.
func (g *gainCurve) gain(sigma float64, elapsed time.Duration) float64 {
	if elapsed <= 0 {
		return 0
	}
	for _, p := range g.hist {
		if p.Sigma <= sigma {
			return p.At.Seconds() / elapsed.Seconds()
		}
	}
	return 0
}

func loadGainCurve(dir string, p jobs.Obstacle) *gainCurve { return nil }

func fastestSingleNode(dir string, p jobs.Obstacle) (time.Duration, bool) { return 0, false }

func recordRun(rep *Report, s *submission, opt RunOptions) error { return errNoStore }
