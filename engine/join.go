package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine/worker"
)

// Join (docs/FAILURES.md, volatile nodes): a host of the inventory joins a
// running job as a spare — gridtui join RUN HOST. The submitter starts a
// worker on it (as it starts a spare beside the job's nodes) without
// stopping the attempt; the worker idles until a loss or a drain, when the
// recovery moves a part there as to any spare (replace: live workers of
// the job outside the plan).

// ErrJoin is wrapped by a refused join: a host the inventory does not
// know, one already in the job, a run whose workers it did not start, a
// worker that did not start.
var ErrJoin = errors.New("engine: cannot join")

type joinReq struct {
	host  string
	reply chan error
}

// joinResult is a joining worker's start, handed back to the event loop.
type joinResult struct {
	host  string
	w     *deploy.Worker
	err   error
	reply chan error
}

// joining is what Run keeps across attempts of the hosts joining the job:
// started in the background, added to the run's workers by the event loop
// of the attempt running when they are up.
type joining struct {
	ctx     context.Context // the run's
	inv     *inventory.Inventory
	opt     RunOptions
	workers *[]*deploy.Worker // the run's (recoverer.workers)
	pending map[string]bool   // by host, starting; the event loop's alone
	done    chan joinResult
	wg      sync.WaitGroup
}

func newJoining(ctx context.Context, inv *inventory.Inventory, opt RunOptions, workers *[]*deploy.Worker) *joining {
	return &joining{ctx: ctx, inv: inv, opt: opt, workers: workers, pending: map[string]bool{}, done: make(chan joinResult, 16)}
}

// Join asks the run to start a worker on host (a host of the inventory the
// job does not use) and keep it as a spare. It returns once the worker is
// up and a spare of the job, or the run refused (ErrJoin), or ctx ended.
func (c *Control) Join(ctx context.Context, host string) error {
	r := joinReq{host: host, reply: make(chan error, 1)}
	select {
	case c.joins <- r:
	case <-ctx.Done():
		return fmt.Errorf("%w %s: no run is iterating: %w", ErrJoin, host, ctx.Err())
	}
	select {
	case err := <-r.reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// joinReqs is the channel of join requests (nil: none ever come).
func (s *submission) joinReqs() chan joinReq {
	if s.opt.Control == nil {
		return nil
	}
	return s.opt.Control.joins
}

// joinsDone is the channel of started joining workers (nil: none).
func (s *submission) joinsDone() chan joinResult {
	if s.joins == nil {
		return nil
	}
	return s.joins.done
}

// join takes a join request: refused at once, or its worker starting in
// the background (joined takes it when it is up).
func (s *submission) join(r joinReq) {
	j := s.joins
	if j == nil {
		r.reply <- fmt.Errorf("%w %s: the run was given its workers, it starts none", ErrJoin, r.host)
		return
	}
	hosts := j.inv.Hosts()
	i := slices.IndexFunc(hosts, func(h inventory.Host) bool { return h.Name == r.host })
	switch {
	case i < 0:
		names := make([]string, len(hosts))
		for k, h := range hosts {
			names[k] = h.Name
		}
		r.reply <- fmt.Errorf("%w %s: not a host of the inventory (hosts: %s)", ErrJoin, r.host, strings.Join(names, ", "))
		return
	case s.inRun(r.host):
		r.reply <- fmt.Errorf("%w %s: it already holds a part of run %s", ErrJoin, r.host, s.spec.Name)
		return
	case j.pending[r.host]:
		r.reply <- fmt.Errorf("%w %s: it is already joining the job", ErrJoin, r.host)
		return
	}
	for _, w := range *j.workers {
		if w.Host.Name == r.host && !isDone(w) {
			r.reply <- fmt.Errorf("%w %s: it is already a spare of the job", ErrJoin, r.host)
			return
		}
	}
	j.pending[r.host] = true
	s.logf(r.host, "joining the job as a spare: starting a worker")
	h := hosts[i]
	j.wg.Go(func() {
		ctx, cancel := context.WithTimeout(j.ctx, restartTimeout)
		defer cancel()
		res := joinResult{host: h.Name, reply: r.reply}
		ws, err := deploy.StartWorkers(ctx, j.inv, []inventory.Host{h}, deploy.BootFor(j.opt.RunID, j.opt.Secret), j.opt.Deploy)
		switch {
		case err != nil:
			res.err = fmt.Errorf("%w %s: its worker did not start: %w", ErrJoin, h.Name, err)
		case len(ws) != 1:
			res.err = fmt.Errorf("%w %s: %d workers started, want 1", ErrJoin, h.Name, len(ws))
			stopWorkers(ws, nil, "")
		default:
			res.w = ws[0]
		}
		j.done <- res
	})
}

// joined adds a started joining worker to the run's workers: a spare of
// the job from now on.
func (s *submission) joined(res joinResult) {
	j := s.joins
	delete(j.pending, res.host)
	if res.err != nil {
		s.logf(res.host, "did not join the job: %v", res.err)
		res.reply <- res.err
		return
	}
	w := res.w
	ctrl, data := worker.SplitListen(w.Hello.Listen)
	if len(ctrl) == 0 {
		stopWorkers([]*deploy.Worker{w}, nil, "")
		res.reply <- fmt.Errorf("%w %s: its worker reported no control address (hello %v)", ErrJoin, res.host, w.Hello.Listen)
		return
	}
	*j.workers = append(*j.workers, w)
	s.workers[w.Host.Name], s.ctrl[w.Host.Name], s.data[w.Host.Name] = w, ctrl, data
	if j.opt.OnWorkers != nil {
		j.opt.OnWorkers(*j.workers)
	}
	s.logf(res.host, "joined the job as a spare: the next loss or drain moves a part here")
	res.reply <- nil
}

// finish waits for the workers still starting as the run ends and stops
// them: they joined nothing.
func (j *joining) finish() {
	if j == nil {
		return
	}
	started := make(chan struct{})
	go func() {
		j.wg.Wait()
		close(started)
	}()
	for waiting := true; waiting; {
		select {
		case res := <-j.done:
			j.refuse(res)
		case <-started:
			waiting = false
		}
	}
	for {
		select {
		case res := <-j.done:
			j.refuse(res)
		default:
			return
		}
	}
}

// refuse stops a joining worker the run ended without, and says so.
func (j *joining) refuse(res joinResult) {
	if res.w != nil {
		stopWorkers([]*deploy.Worker{res.w}, nil, "")
	}
	if res.err == nil {
		res.err = fmt.Errorf("%w %s: the run ended as its worker started", ErrJoin, res.host)
	}
	res.reply <- res.err
}

// pendingHosts returns the hosts still joining: no drained part goes there.
func (j *joining) pendingHosts() []inventory.Host {
	if j == nil {
		return nil
	}
	var out []inventory.Host
	for _, h := range j.inv.Hosts() {
		if j.pending[h.Name] {
			out = append(out, h)
		}
	}
	return out
}
