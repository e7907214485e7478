package sweep

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gridtui/gridtui/jobs"
)

// instance is one point of the sweep as the scheduler follows it.
type instance struct {
	point    jobs.Point
	spec     jobs.Spec
	eligible []string // the inventory hosts its node selection allows
	need     int      // how many of them it runs on
	attempts int      // attempts made so far (earlier sessions included)
	why      string   // why its next attempt runs, when not its first
	err      error    // an instance that cannot run at all
}

// scheduler places instances on free hosts as they free up: the queue in
// order, an instance that does not fit yet passed over for a later one
// that does (backfill), at most MaxParallel at once.
type scheduler struct {
	opt     Options
	run     RunFunc
	id      string
	log     *jobLog
	prev    *Log // the job log as Resume read it
	points  []jobs.Point
	all     []*instance
	queue   []*instance
	busy    map[string]bool
	cluster map[string]string // each host's cluster
	running map[int]RunningInstance
	done    []Attempt // this session's attempts
	reruns  []Rerun
	ran     int
	skipped int
	started time.Time
	settled int // instances settled in this session (ok, or failed for good)
}

// ended is an attempt that returned.
type ended struct {
	in      *instance
	hosts   []string
	started time.Time
	res     Result
}

func newScheduler(spec jobs.Spec, points []jobs.Point, run RunFunc, opt Options) (*scheduler, error) {
	if len(opt.Hosts) == 0 {
		return nil, fmt.Errorf("sweep: %s has no hosts", opt.Source)
	}
	s := &scheduler{opt: opt, run: run, points: points, busy: map[string]bool{}, running: map[int]RunningInstance{}, cluster: map[string]string{}}
	for _, h := range opt.Hosts {
		s.cluster[h.Name] = h.Site + "/" + h.Cluster
	}
	for _, p := range points {
		in := &instance{point: p}
		in.spec, in.err = spec.At(p)
		if in.err == nil {
			in.eligible, in.need, in.err = placement(in.spec, opt)
		}
		s.all = append(s.all, in)
	}
	return s, nil
}

// placement is the hosts an instance may run on and how many it takes.
func placement(spec jobs.Spec, opt Options) ([]string, int, error) {
	sel := spec.Nodes
	sel.Any = 0
	if len(spec.Groups) > 0 {
		sel = jobs.NodeSelection{}
		for _, g := range spec.Groups {
			sel.Hosts = append(sel.Hosts, g.Workers...)
		}
	}
	eligible, err := sel.Resolve(opt.Hosts, opt.Source)
	if err != nil {
		return nil, 0, err
	}
	need := len(eligible)
	if spec.Nodes.Any > 0 && len(spec.Groups) == 0 {
		need = spec.Nodes.Any
	}
	if need > len(eligible) {
		return nil, 0, fmt.Errorf("sweep: %d nodes asked, %s has %d that the job's selection allows", need, opt.Source, len(eligible))
	}
	return eligible, need, nil
}

// loop starts what fits, waits for an attempt to end, logs it, retries it
// or settles it, until the queue is empty and nothing runs, or ctx is
// cancelled and what ran has ended.
func (s *scheduler) loop(ctx context.Context) error {
	s.started = s.opt.now()
	endc := make(chan ended)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var logErr error
	for {
		if ctx.Err() == nil && logErr == nil {
			s.startFitting(ctx, endc)
		}
		if len(s.running) == 0 {
			return logErr
		}
		s.progress()
		select {
		case e := <-endc:
			if err := s.ended(ctx, e); err != nil && logErr == nil {
				logErr = err
			}
		case <-tick.C:
		}
	}
}

// startFitting starts every queued instance that fits now, in order. An
// instance that does not fit reserves the hosts it may use: a later one
// starts only on hosts outside every reservation (backfill that never
// delays an earlier instance, so a multi-node instance is not starved by
// one-node ones).
func (s *scheduler) startFitting(ctx context.Context, endc chan<- ended) {
	reserved := map[string]bool{}
	for i := 0; i < len(s.queue); {
		if s.opt.MaxParallel > 0 && len(s.running) >= s.opt.MaxParallel {
			return
		}
		in := s.queue[i]
		if in.err != nil {
			s.queue = slices.Delete(s.queue, i, i+1)
			s.record(ended{in: in, started: s.opt.now(), res: Result{Outcome: OutcomeFailed, Err: in.err}})
			s.settled++
			continue
		}
		hosts := s.pick(in, reserved)
		if hosts == nil {
			for _, h := range in.eligible {
				reserved[h] = true
			}
			i++
			continue
		}
		s.queue = slices.Delete(s.queue, i, i+1)
		s.launch(ctx, in, hosts, endc)
	}
}

// pick takes the instance's hosts from the free ones outside reserved, or
// returns nil: all in one cluster when one has enough (a multi-node
// instance's pairs then stay on the cluster's fast network), else in
// inventory order.
func (s *scheduler) pick(in *instance, reserved map[string]bool) []string {
	var free []string
	byCluster := map[string][]string{}
	for _, h := range in.eligible {
		if !s.busy[h] && !reserved[h] {
			free = append(free, h)
			c := s.cluster[h]
			byCluster[c] = append(byCluster[c], h)
			if in.need > 1 && len(byCluster[c]) == in.need {
				return byCluster[c]
			}
		}
	}
	if len(free) < in.need {
		return nil
	}
	return free[:in.need]
}

func (s *scheduler) launch(ctx context.Context, in *instance, hosts []string, endc chan<- ended) {
	for _, h := range hosts {
		s.busy[h] = true
	}
	in.attempts++
	s.ran++
	spec := in.spec
	spec.Nodes, spec.Groups = jobs.NodeSelection{Hosts: hosts}, nil
	started := s.opt.now()
	s.running[in.point.Index] = RunningInstance{Instance: in.point.Index, Params: in.point.Key(), Hosts: hosts, Attempt: in.attempts, Started: started}
	s.saveRunning()
	go func() {
		res := s.run(ctx, spec)
		endc <- ended{in: in, hosts: hosts, started: started, res: res}
	}()
}

// ended frees an attempt's hosts, logs it and queues a retry if it failed
// and has retries left.
func (s *scheduler) ended(ctx context.Context, e ended) error {
	for _, h := range e.hosts {
		delete(s.busy, h)
	}
	delete(s.running, e.in.point.Index)
	a, err := s.record(e)
	s.saveRunning()
	cancelled := a.Outcome == OutcomeCancelled
	retry := !cancelled && a.Outcome != OutcomeOK && ctx.Err() == nil && e.in.attempts < 1+s.opt.Retries+s.resumedAttempts(e.in)
	switch {
	case retry:
		msg := a.Outcome
		if a.Error != nil {
			msg += ": " + *a.Error
		}
		e.in.why = fmt.Sprintf("retry %d of %d: attempt %d %s", e.in.attempts-s.resumedAttempts(e.in), s.opt.Retries, e.in.attempts, msg)
		// At the head of the queue: a retry runs on the next free hosts,
		// so that a flaky instance is settled early, not last.
		s.queue = append([]*instance{e.in}, s.queue...)
	case !cancelled:
		s.settled++
	}
	return err
}

// resumedAttempts is how many attempts an instance had before this
// session: retries count from this session's first attempt.
func (s *scheduler) resumedAttempts(in *instance) int {
	n := 0
	for _, a := range s.done {
		if a.Instance == in.point.Index {
			n++
		}
	}
	return in.attempts - n
}

// record turns an ended attempt into its job-log line and writes it.
func (s *scheduler) record(e ended) (Attempt, error) {
	in := e.in
	a := Attempt{Kind: "attempt", Sweep: s.id, Instance: in.point.Index, Attempt: max(in.attempts, 1),
		Params: in.point.Map(), Hosts: e.hosts, Started: e.started.UTC(),
		WallSeconds: s.opt.now().Sub(e.started).Seconds(), Outcome: e.res.Outcome,
		Iterations: e.res.Iterations, Residual: e.res.Residual}
	if a.Hosts == nil {
		a.Hosts = []string{}
	}
	if e.res.RunTime != nil {
		sec := e.res.RunTime.Seconds()
		a.RunSeconds = &sec
	}
	if e.res.RecordID != "" {
		a.RecordID = &e.res.RecordID
	}
	switch {
	case e.res.Outcome == "aborted" || (e.res.Err != nil && errors.Is(e.res.Err, context.Canceled)):
		a.Outcome = OutcomeCancelled
	case e.res.Outcome == "" && e.res.Err != nil:
		a.Outcome = OutcomeFailed
	case e.res.Outcome == "":
		a.Outcome = OutcomeOK
	}
	if e.res.Err != nil {
		msg := e.res.Err.Error()
		a.Error = &msg
	}
	if in.why != "" {
		why := in.why
		a.Why = &why
	}
	s.done = append(s.done, a)
	err := s.log.write(a)
	if s.opt.OnAttempt != nil {
		s.opt.OnAttempt(a)
	}
	return a, err
}

// saveRunning writes the running instances beside the job log; it fails
// quietly (the file only sharpens the reasons --resume gives).
func (s *scheduler) saveRunning() {
	rs := make([]RunningInstance, 0, len(s.running))
	for _, r := range s.running {
		rs = append(rs, r)
	}
	_ = saveRunning(s.log.path, rs)
}
