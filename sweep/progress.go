package sweep

import (
	"fmt"
	"slices"
	"time"
)

// Progress is a sweep's state at one moment, for a headless progress line
// or the console: a plain value, copied out of the scheduler.
type Progress struct {
	Sweep string `json:"sweep"`
	// Total instances; Skipped succeeded before this session (--resume);
	// Settled are done in this session (succeeded, or failed with no
	// retry left); Running and Queued are the rest (retries included).
	Total   int `json:"total"`
	Skipped int `json:"skipped"`
	Settled int `json:"settled"`
	Running int `json:"running"`
	Queued  int `json:"queued"`
	// OK and Failed count this session's attempts; Retried those that
	// were retries.
	OK      int           `json:"ok"`
	Failed  int           `json:"failed"`
	Retried int           `json:"retried"`
	Elapsed time.Duration `json:"elapsed_seconds"`
	// Rate is instances settled per second in this session; ETA the time
	// the queue takes at that rate, nil (null) before one has settled.
	Rate      float64           `json:"rate_per_second"`
	ETA       *time.Duration    `json:"eta_seconds"`
	Instances []RunningInstance `json:"running_instances"`
}

// RunningInstance is an instance running now.
type RunningInstance struct {
	Instance int       `json:"instance"`
	Params   string    `json:"params"`
	Hosts    []string  `json:"hosts"`
	Attempt  int       `json:"attempt"`
	Started  time.Time `json:"started"`
}

// Line is the progress as one line of text:
// "[ 37/100] 8 running, 55 queued, 1 failed, 1 retried  4.1/s  ETA 13s".
func (p Progress) Line() string {
	done := p.Skipped + p.Settled
	eta := "ETA –"
	if p.ETA != nil {
		eta = "ETA " + p.ETA.Round(time.Second).String()
	}
	w := len(fmt.Sprint(p.Total))
	return fmt.Sprintf("[%*d/%d] %d running, %d queued, %d ok, %d failed, %d retried  %.2f/s  %s",
		w, done, p.Total, p.Running, p.Queued, p.OK, p.Failed, p.Retried, p.Rate, eta)
}

// snapshot builds the progress now.
func (s *scheduler) snapshot() Progress {
	el := s.opt.now().Sub(s.started)
	p := Progress{Sweep: s.id, Total: len(s.all), Skipped: s.skipped, Settled: s.settled,
		Running: len(s.running), Queued: len(s.queue), Elapsed: el, Instances: []RunningInstance{}}
	for _, a := range s.done {
		switch {
		case a.Outcome == OutcomeOK:
			p.OK++
		case a.Outcome != OutcomeCancelled:
			p.Failed++
		}
		if a.Why != nil && !isResumeWhy(*a.Why) {
			p.Retried++
		}
	}
	if s.settled > 0 && el > 0 {
		p.Rate = float64(s.settled) / el.Seconds()
		eta := time.Duration(float64(len(s.queue)+len(s.running)) / p.Rate * float64(time.Second))
		p.ETA = &eta
	}
	for _, r := range s.running {
		p.Instances = append(p.Instances, r)
	}
	slices.SortFunc(p.Instances, func(a, b RunningInstance) int { return a.Instance - b.Instance })
	return p
}

func isResumeWhy(why string) bool { return len(why) >= 7 && why[:7] == "resumed" }

func (s *scheduler) progress() {
	if s.opt.OnProgress != nil {
		s.opt.OnProgress(s.snapshot())
	}
}
