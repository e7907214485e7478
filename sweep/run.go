package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// Result is what one run of an instance measured.
type Result struct {
	Iterations int
	Residual   float64
}

// Runner runs one instance with its parameters (an engine run, in gridtui).
type Runner func(ctx context.Context, params map[string]string) (Result, error)

// Options say how a sweep runs.
type Options struct {
	Throttle int    // instances at once (≥ 1)
	Retries  int    // further attempts of a failed instance
	Log      string // the job log (JSON lines, appended); "" for none
	Resume   bool   // skip the instances the log has as done
	// Progress, if set, is called after every attempt.
	Progress func(Progress)
}

// Progress is where a sweep stands.
type Progress struct {
	Done, Failed, Running, Total int
	Elapsed, ETA                 time.Duration
}

// Outcome is one instance's line of the results table.
type Outcome struct {
	Index      int               `json:"index"`
	Params     map[string]string `json:"params"`
	Status     string            `json:"status"` // ok, failed, or skipped (interrupted before it ran)
	Attempts   int               `json:"attempts"`
	Iterations int               `json:"iterations"`
	Residual   float64           `json:"residual"`
	Seconds    float64           `json:"seconds"`
	Error      string            `json:"error,omitempty"`
	Rerun      string            `json:"rerun,omitempty"` // why --resume ran it again
}

// logEntry is one line of the job log: one attempt of one instance.
type logEntry struct {
	Outcome
	Attempt int       `json:"attempt"`
	At      time.Time `json:"at"`
}

// Status values of an Outcome.
const (
	StatusOK      = "ok"
	StatusFailed  = "failed"
	StatusSkipped = "skipped"
)

// Run runs every instance, at most o.Throttle at once, each up to
// 1+o.Retries times, and returns the outcomes in instance order. With
// o.Resume the instances the log records as done keep their outcome and
// do not run; the others carry why they run again. A cancelled ctx stops
// starting instances (those that did not run are "skipped") and Run
// returns ctx's error with the table so far.
func Run(ctx context.Context, instances []map[string]string, run Runner, o Options) ([]Outcome, error) {
	if o.Throttle < 1 {
		return nil, fmt.Errorf("%w: throttle %d: at least 1", ErrSweep, o.Throttle)
	}
	out := make([]Outcome, len(instances))
	for i, p := range instances {
		out[i] = Outcome{Index: i, Params: p, Status: StatusSkipped}
	}
	todo := make([]int, 0, len(instances))
	if o.Resume && o.Log != "" {
		prev, err := readLog(o.Log, instances)
		if err != nil {
			return nil, err
		}
		for i := range instances {
			switch e, ok := prev[i]; {
			case ok && e.Status == StatusOK:
				out[i] = e.Outcome
			case ok:
				out[i].Rerun = fmt.Sprintf("failed before (%d attempts): %s", e.Attempt, e.Error)
				todo = append(todo, i)
			default:
				out[i].Rerun = "not in the log: it had not finished"
				todo = append(todo, i)
			}
		}
	} else {
		for i := range instances {
			todo = append(todo, i)
		}
	}
	s := &state{o: o, out: out, start: time.Now(), total: len(instances)}
	for _, x := range out {
		if x.Status == StatusOK {
			s.done++
		}
	}
	if o.Log != "" {
		f, err := os.OpenFile(o.Log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, fmt.Errorf("sweep: job log: %w", err)
		}
		defer f.Close()
		s.log = f
	}
	slots := make(chan struct{}, o.Throttle)
	var wg sync.WaitGroup
	for _, i := range todo {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			s.instance(ctx, i, run)
		}()
	}
	wg.Wait()
	if s.logErr != nil {
		return out, s.logErr
	}
	return out, ctx.Err()
}

// state is a running sweep's shared bookkeeping.
type state struct {
	mu                    sync.Mutex
	o                     Options
	out                   []Outcome
	log                   *os.File
	logErr                error
	start                 time.Time
	done, failed, running int
	total                 int
	busy                  time.Duration // summed time of finished instances
	finished              int
}

// instance runs instance i until it succeeds or its attempts run out.
func (s *state) instance(ctx context.Context, i int, run Runner) {
	s.mu.Lock()
	s.running++
	params := s.out[i].Params
	s.mu.Unlock()
	for attempt := 1; attempt <= 1+s.o.Retries; attempt++ {
		t := time.Now()
		res, err := run(ctx, params)
		if ctx.Err() != nil && err != nil {
			break // interrupted: neither done nor failed; --resume runs it
		}
		s.mu.Lock()
		x := &s.out[i]
		x.Attempts, x.Seconds = attempt, time.Since(t).Seconds()
		x.Iterations, x.Residual, x.Status, x.Error = res.Iterations, res.Residual, StatusOK, ""
		if err != nil {
			x.Status, x.Error = StatusFailed, err.Error()
		}
		s.record(logEntry{Outcome: *x, Attempt: attempt, At: time.Now()})
		last := err == nil || attempt == 1+s.o.Retries
		if last {
			s.running--
			s.finished++
			s.busy += time.Since(s.start)
			if err == nil {
				s.done++
			} else {
				s.failed++
			}
		}
		s.progress()
		s.mu.Unlock()
		if err == nil {
			return
		}
	}
	s.mu.Lock()
	if s.out[i].Status == StatusSkipped {
		s.running--
	}
	s.mu.Unlock()
}

// record appends an attempt to the log (s.mu held).
func (s *state) record(e logEntry) {
	if s.log == nil || s.logErr != nil {
		return
	}
	b, _ := json.Marshal(e)
	if _, err := s.log.Write(append(b, '\n')); err != nil {
		s.logErr = fmt.Errorf("sweep: job log: %w", err)
	}
}

// progress reports where the sweep stands (s.mu held). The ETA is the
// remaining instances at the rate instances have finished so far.
func (s *state) progress() {
	if s.o.Progress == nil {
		return
	}
	el := time.Since(s.start)
	p := Progress{Done: s.done, Failed: s.failed, Running: s.running, Total: s.total, Elapsed: el}
	if s.finished > 0 {
		left := s.total - s.done - s.failed
		p.ETA = time.Duration(float64(el) / float64(s.finished) * float64(left))
	}
	s.o.Progress(p)
}

// readLog returns each instance's last attempt in the log; an instance
// whose parameters differ from the sweep's is an error (another sweep's
// log).
func readLog(path string, instances []map[string]string) (map[int]logEntry, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[int]logEntry{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sweep: job log: %w", err)
	}
	out := map[int]logEntry{}
	dec := json.NewDecoder(bytes.NewReader(b))
	for line := 1; ; line++ {
		var e logEntry
		if err := dec.Decode(&e); err != nil {
			// The end, or a torn last line of a console killed
			// mid-write: what came before it stands.
			break
		}
		if e.Index < 0 || e.Index >= len(instances) || !sameParams(e.Params, instances[e.Index]) {
			return nil, fmt.Errorf("sweep: job log %s: entry %d (instance %d) is not this sweep's: start a new log or drop --resume", path, line, e.Index)
		}
		out[e.Index] = e
	}
	return out, nil
}

func sameParams(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
