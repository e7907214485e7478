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
	host string
	call *joinCall
}

// joinCall is one caller's join, answered once: by the event loop, or
// given up by its caller (its ctx ended first). A worker that starts after
// its caller gave up is stopped, never added: the caller was told the host
// does not join, and that stays true.
type joinCall struct {
	mu       sync.Mutex
	reply    chan error // holds the one answer
	answered bool
	gone     bool
}

func newJoinCall() *joinCall { return &joinCall{reply: make(chan error, 1)} }

// answer hands err to the caller; false: the caller has gone, nothing was
// handed.
func (c *joinCall) answer(err error) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gone || c.answered {
		return false
	}
	c.answered = true
	c.reply <- err
	return true
}

// leave gives the call up; false: it was answered meanwhile (the answer
// waits in reply).
func (c *joinCall) leave() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.answered {
		return false
	}
	c.gone = true
	return true
}

// joinResult is a joining worker's start, handed back to the event loop.
type joinResult struct {
	host string
	w    *deploy.Worker
	err  error
	call *joinCall
}

// joining is what Run keeps across attempts of the hosts joining the job:
// started in the background, added to the run's workers by the event loop
// of the attempt running when they are up.
type joining struct {
	ctx     context.Context // the run's, ended by finish
	cancel  context.CancelFunc
	inv     *inventory.Inventory
	opt     RunOptions
	workers *[]*deploy.Worker // the run's (recoverer.workers)
	pending map[string]bool   // by host, starting; the event loop's alone
	done    chan joinResult
	wg      sync.WaitGroup
	// noted records a joined worker in the run's manifest (resume_run.go;
	// nil: the run has none).
	noted func(w *deploy.Worker)
}

func newJoining(ctx context.Context, inv *inventory.Inventory, opt RunOptions, workers *[]*deploy.Worker) *joining {
	ctx, cancel := context.WithCancel(ctx)
	return &joining{ctx: ctx, cancel: cancel, inv: inv, opt: opt, workers: workers, pending: map[string]bool{}, done: make(chan joinResult, 16)}
}

// Join asks the run to start a worker on host (a host of the inventory the
// job does not use) and keep it as a spare. It returns once the worker is
// up and a spare of the job, or the run refused (ErrJoin). When ctx ends
// first the join is given up (ErrJoin too): a worker that starts after
// that is stopped, so the host does not join.
func (c *Control) Join(ctx context.Context, host string) error {
	r := joinReq{host: host, call: newJoinCall()}
	select {
	case c.joins <- r:
	case <-ctx.Done():
		return fmt.Errorf("%w %s: no run is iterating: %w", ErrJoin, host, ctx.Err())
	}
	select {
	case err := <-r.call.reply:
		return err
	case <-ctx.Done():
	}
	if !r.call.leave() {
		return <-r.call.reply // answered as ctx ended: the truth
	}
	return fmt.Errorf("%w %s: given up before its worker was up (%w): it does not join, a worker that starts now is stopped", ErrJoin, host, ctx.Err())
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
		r.call.answer(fmt.Errorf("%w %s: the run was given its workers, it starts none", ErrJoin, r.host))
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
		r.call.answer(fmt.Errorf("%w %s: not a host of the inventory (hosts: %s)", ErrJoin, r.host, strings.Join(names, ", ")))
		return
	case s.inRun(r.host):
		r.call.answer(fmt.Errorf("%w %s: it already holds a part of run %s", ErrJoin, r.host, s.spec.Name))
		return
	case j.pending[r.host]:
		r.call.answer(fmt.Errorf("%w %s: it is already joining the job", ErrJoin, r.host))
		return
	}
	for _, w := range *j.workers {
		if w.Host.Name == r.host && !isDone(w) {
			r.call.answer(fmt.Errorf("%w %s: it is already a spare of the job", ErrJoin, r.host))
			return
		}
	}
	h := hosts[i]
	if why := s.gatewayGap(h); why != "" {
		r.call.answer(fmt.Errorf("%w %s: %s", ErrJoin, r.host, why))
		return
	}
	j.pending[r.host] = true
	s.logf(r.host, "joining the job as a spare: starting a worker")
	j.wg.Go(func() {
		ctx, cancel := context.WithTimeout(j.ctx, restartTimeout)
		defer cancel()
		res := joinResult{host: h.Name, call: r.call}
		ws, err := startRecoveryWorkers(ctx, j.inv, []inventory.Host{h}, deploy.BootFor(j.opt.RunID, j.opt.Secret), j.opt.Deploy)
		switch {
		case err != nil && j.ctx.Err() != nil:
			res.err = fmt.Errorf("%w %s: the run ended before its worker started", ErrJoin, h.Name)
			stopWorkers(ws, nil, "")
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

// joined adds a started joining worker to the run's workers, a spare of
// the job from now on, and returns it; nil: it did not join (its start
// failed, or its caller gave the join up: the worker is stopped).
func (s *submission) joined(res joinResult) *deploy.Worker {
	j := s.joins
	delete(j.pending, res.host)
	if res.err != nil {
		s.logf(res.host, "did not join the job: %v", res.err)
		res.call.answer(res.err)
		return nil
	}
	w := res.w
	ctrl, data := worker.SplitListen(w.Hello.Listen)
	if len(ctrl) == 0 {
		stopWorkers([]*deploy.Worker{w}, nil, "")
		err := fmt.Errorf("%w %s: its worker reported no control address (hello %v)", ErrJoin, res.host, w.Hello.Listen)
		s.logf(res.host, "did not join the job: %v", err)
		res.call.answer(err)
		return nil
	}
	if !res.call.answer(nil) {
		stopWorkers([]*deploy.Worker{w}, nil, "")
		s.logf(res.host, "did not join the job: its worker started after the join was given up (its caller left); stopped it")
		return nil
	}
	*j.workers = append(*j.workers, w)
	s.workers[w.Host.Name], s.ctrl[w.Host.Name], s.data[w.Host.Name] = w, ctrl, data
	if j.opt.OnWorkers != nil {
		j.opt.OnWorkers(*j.workers)
	}
	if j.noted != nil {
		j.noted(w)
	}
	s.logf(res.host, "joined the job as a spare: the next loss or drain moves a part here")
	return w
}

// gatewayGap says why host h cannot join a run whose sites link through
// gateways ("" it can): its site names a gateway, the run (with h) spans
// another site that names one, and its site's gateway is not running
// (gateways start with the run, on the sites of its nodes only). A running
// gateway is no gap: the attempt in which the joined worker takes a part
// tells it the worker's address (allowWorkers). Nor is a site whose
// gateway was lost: its pairs fall back to direct routes and SSH tunnels,
// a joined worker's as any other's.
func (s *submission) gatewayGap(h inventory.Host) string {
	if s.inv == nil {
		return ""
	}
	site := s.inv.SiteOf(h.Name)
	if site == nil || len(site.Gateways) == 0 || s.gwLost[site.Name] != nil {
		return ""
	}
	need := gatewaySites(s.inv, append(slices.Clone(s.plan.Ranks), h.Name))
	var others []string
	for _, o := range need {
		if o != site {
			others = append(others, o.Name)
		}
	}
	if len(others) == 0 {
		return ""
	}
	if s.gateways[site.Name] != nil {
		return ""
	}
	return fmt.Sprintf("its site %s reaches site %s through a gateway (sites.toml: %s on %s) that is not running: a run starts the gateways of its nodes' sites only, as it starts",
		site.Name, strings.Join(others, ", "), gatewayName(site.Name), site.Gateways[0].Host)
}

// finish ends the starts still under way as the run ends (their context),
// waits for them and stops the workers that started: they joined nothing.
func (j *joining) finish() {
	if j == nil {
		return
	}
	j.cancel()
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
	res.call.answer(res.err)
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
