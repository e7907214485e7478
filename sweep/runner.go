package sweep

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gridtui/gridtui/jobs"
)

// Result is what running one instance gave: the engine's outcome and
// figures, or the error that stopped it.
type Result struct {
	Outcome    string // "ok", "not converged", "failed" or "aborted"
	Iterations *int
	Residual   *float64
	RunTime    *time.Duration
	RecordID   string
	Err        error
}

// RunFunc runs one instance, an ordinary job whose node selection names
// the hosts it was given, and returns when it ended or ctx was cancelled.
// The command line hands engine.Run wrapped in one.
type RunFunc func(ctx context.Context, spec jobs.Spec) Result

// Options tune a sweep.
type Options struct {
	// Hosts are the inventory's hosts, Source its name in errors: an
	// instance runs on hosts of its own node selection that no other
	// instance holds.
	Hosts  []jobs.NodeRef
	Source string
	// MaxParallel is the most instances running at once (0: as many as the
	// hosts hold).
	MaxParallel int
	// Retries is how many more times a failed instance runs.
	Retries int
	// MaxInstances refuses a larger sweep (0: jobs.DefaultMaxInstances).
	MaxInstances int
	// Dir is the data directory; the job log is LogPath(Dir, id).
	Dir string
	// OnProgress is told the sweep's progress when an attempt starts or
	// ends, and once a second (from one goroutine).
	OnProgress func(Progress)
	// OnAttempt is told each attempt as its job-log line is written.
	OnAttempt func(Attempt)
	// OnResume is told, before anything runs again, which instances
	// Resume reruns and why, and how many succeeded before.
	OnResume func(reruns []Rerun, skipped int)
	// Now is the clock (nil: time.Now); tests set it.
	Now func() time.Time
}

// Summary is what a sweep did in this session, and the table of all its
// instances from its job log.
type Summary struct {
	ID  string
	Log string // the job log's path
	// Total instances; Ran of them ran in this session, Skipped had
	// succeeded before (--resume).
	Total, Ran, Skipped int
	OK, Failed, NotRun  int
	Wall                time.Duration
	// Reruns says, for each instance that ran again on --resume, why.
	Reruns []Rerun
	Rows   []Row
}

// Rerun is an instance run again on --resume and why.
type Rerun struct {
	Instance int    `json:"instance"`
	Params   string `json:"params"`
	Why      string `json:"why"`
}

// ErrInterrupted is returned when ctx was cancelled before every instance
// ran: the sweep can be resumed.
var ErrInterrupted = errors.New("sweep: interrupted")

// Start runs the instances of spec (spec.Sweep set) with a new job log and
// returns its summary. Its error is ErrInterrupted-wrapped when ctx was
// cancelled; a failed instance is not an error (Summary.Failed).
func Start(ctx context.Context, spec jobs.Spec, run RunFunc, opt Options) (*Summary, error) {
	if spec.Sweep == nil {
		return nil, fmt.Errorf("sweep: job %s has no [sweep]", spec.Name)
	}
	points, err := spec.Sweep.Points(opt.maxInstances())
	if err != nil {
		return nil, err
	}
	now := opt.now()
	id := NewID(now)
	job, err := jobs.FormatSpec(spec)
	if err != nil {
		return nil, err
	}
	h := Header{Kind: "sweep", Sweep: id, Started: now, Job: string(job), Instances: len(points)}
	for _, a := range spec.Sweep.Axes {
		h.Axes = append(h.Axes, Axis{Name: a.Name, Values: a.Values})
	}
	s, err := newScheduler(spec, points, run, opt)
	if err != nil {
		return nil, err
	}
	log, err := createLog(LogPath(opt.Dir, id), h)
	if err != nil {
		return nil, err
	}
	s.id, s.log = id, log
	for _, in := range s.all {
		s.queue = append(s.queue, in)
	}
	return s.finish(ctx, &Log{Path: log.path, Header: h})
}

// Resume runs again the instances of sweep id that have no successful
// attempt in its job log: failed ones, those cancelled by an interrupt and
// those that never ran or whose outcome the log lacks (the console ended).
// Summary.Reruns says why each ran again.
func Resume(ctx context.Context, id string, run RunFunc, opt Options) (*Summary, error) {
	prev, err := ReadLog(opt.Dir, id) // a missing log: ErrNoSweep
	if err != nil {
		return nil, err
	}
	// Locked, then read again: what another process wrote before it
	// ended counts.
	log, err := appendLog(prev.Path)
	if err != nil {
		return nil, err
	}
	s, err := resumeScheduler(id, run, opt)
	if err != nil {
		log.close()
		return nil, err
	}
	s.log = log
	prev = s.prev
	last := lastAttempts(prev.Attempts)
	running := readRunning(prev.Path)
	s.reruns = []Rerun{}
	for _, in := range s.all {
		a, ok := last[in.point.Index]
		if ok && a.Outcome == OutcomeOK {
			s.skipped++
			continue
		}
		in.attempts = attemptsOf(prev.Attempts, in.point.Index)
		in.why = whyRerun(a, ok)
		if r, was := running[in.point.Index]; was && r.Attempt > a.Attempt {
			in.why = fmt.Sprintf("resumed: attempt %d started %s on %s and has no outcome: the console ended while it ran",
				r.Attempt, r.Started.UTC().Format(time.RFC3339), strings.Join(r.Hosts, ","))
		}
		s.reruns = append(s.reruns, Rerun{Instance: in.point.Index, Params: in.point.Key(), Why: in.why})
		s.queue = append(s.queue, in)
	}
	if opt.OnResume != nil {
		opt.OnResume(s.reruns, s.skipped)
	}
	return s.finish(ctx, prev)
}

// resumeScheduler reads sweep id's job log and builds the scheduler of its
// instances.
func resumeScheduler(id string, run RunFunc, opt Options) (*scheduler, error) {
	prev, err := ReadLog(opt.Dir, id)
	if err != nil {
		return nil, err
	}
	spec, err := prev.Spec()
	if err != nil {
		return nil, err
	}
	points, err := spec.Sweep.Points(max(opt.maxInstances(), prev.Header.Instances))
	if err != nil {
		return nil, err
	}
	s, err := newScheduler(spec, points, run, opt)
	if err != nil {
		return nil, err
	}
	s.id, s.prev = id, prev
	return s, nil
}

// whyRerun is the reason an instance runs again on --resume, from its last
// attempt in the job log (ok: it has one).
func whyRerun(a Attempt, ok bool) string {
	switch {
	case !ok:
		// An attempt that had started has a line (cancelled, at least) or
		// is in the running file: this one had not.
		return "resumed: never started before the sweep was interrupted"
	case a.Outcome == OutcomeCancelled:
		return fmt.Sprintf("resumed: attempt %d was cancelled by the interruption", a.Attempt)
	case a.Error != nil:
		return fmt.Sprintf("resumed: attempt %d ended %s: %s", a.Attempt, a.Outcome, *a.Error)
	}
	return fmt.Sprintf("resumed: attempt %d ended %s", a.Attempt, a.Outcome)
}

// lastAttempts is each instance's last attempt in a job log.
func lastAttempts(as []Attempt) map[int]Attempt {
	m := map[int]Attempt{}
	for _, a := range as {
		if b, ok := m[a.Instance]; !ok || a.Attempt >= b.Attempt {
			m[a.Instance] = a
		}
	}
	return m
}

func attemptsOf(as []Attempt, instance int) int {
	n := 0
	for _, a := range as {
		if a.Instance == instance {
			n = max(n, a.Attempt)
		}
	}
	return n
}

// finish runs the queue, closes the log and builds the summary from the
// log's attempts before (prev) and now.
func (s *scheduler) finish(ctx context.Context, prev *Log) (*Summary, error) {
	start := s.opt.now()
	runErr := s.loop(ctx)
	os.Remove(runningPath(s.log.path)) // nothing runs now
	if err := s.log.close(); err != nil && runErr == nil {
		runErr = err
	}
	sum := &Summary{ID: s.id, Log: s.log.path, Total: len(s.all), Ran: s.ran, Skipped: s.skipped,
		Wall: s.opt.now().Sub(start), Reruns: s.reruns}
	if sum.Reruns == nil {
		sum.Reruns = []Rerun{} // none, not unknown
	}
	all := append(slices.Clone(prev.Attempts), s.done...)
	sum.Rows = Rows(prev.Header, s.points, all)
	for _, r := range sum.Rows {
		switch r.Outcome {
		case OutcomeOK:
			sum.OK++
		case OutcomeNotRun, OutcomeCancelled:
			sum.NotRun++
		default:
			sum.Failed++
		}
	}
	if runErr == nil && ctx.Err() != nil && sum.OK+sum.Failed < sum.Total {
		runErr = fmt.Errorf("%w: %d of %d instances not run (gridtui run --resume %s)", ErrInterrupted, sum.NotRun, sum.Total, s.id)
	}
	return sum, runErr
}

func (o Options) maxInstances() int {
	if o.MaxInstances > 0 {
		return o.MaxInstances
	}
	return jobs.DefaultMaxInstances
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}
