package deploy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/deploy/sched"
	"github.com/gridtui/gridtui/deploy/sshclient"
)

// Pending-status polling of a waiting allocation, and how long a release
// waits for the allocation command to end before it kills it.
// A status query and the cancel command get longer: OAR's commands are
// Perl programs that ask a database, seconds each on a loaded frontend, and
// a cancel cut short leaves the job reserved.
const (
	pendingPoll   = 2 * time.Second
	releaseGrace  = 10 * time.Second
	statusTimeout = 15 * time.Second
	cancelTimeout = time.Minute
)

// allocations obtains, once per batch site of a StartWorkers call, the
// allocation of that site's hosts.
type allocations struct {
	inv   *inventory.Inventory
	pool  *sshclient.Pool
	ev    *emitter
	hosts map[string][]inventory. // by site
		Host

	mu    sync.Mutex
	sites map[string]*allocation
	// joined holds the hosts whose workers start in their run's live
	// allocation (joinLive), not in one this call asks for.
	joined map[string]*allocation
}

// allocation is one batch allocation and the workers that use it; it is
// released when the last of them is gone.
type allocation struct {
	site  inventory.Site
	sched sched.Scheduler
	alloc sched.Allocator // sched, when it can be asked for allocations; nil inside one
	r     runner
	ready chan struct{}
	err   error
	id    string
	nodes []string
	hold  *process // the allocation command; nil inside an allocation (not ours)

	key liveKey // where live lists it once granted

	mu      sync.Mutex
	users   int
	closed  bool   // its last worker is gone: no step may join it
	pending string // the job id the allocation command named while waiting
	relOnce sync.Once
}

// newAllocations sorts the batch hosts of a StartWorkers call by site. A
// host that a live allocation of the same run holds joins it (a recovery's
// new worker on the lost node's host: asking the scheduler for a new
// allocation of that node would wait behind the run's own, which holds it).
func newAllocations(inv *inventory.Inventory, pool *sshclient.Pool, hosts []inventory.Host, boot func(inventory.Host) Boot, ev *emitter) *allocations {
	a := &allocations{inv: inv, pool: pool, ev: ev, hosts: map[string][]inventory.Host{}, sites: map[string]*allocation{}, joined: map[string]*allocation{}}
	for _, h := range hosts {
		if sched.SchedulerFor(string(launcherOf(inv, h))) == nil {
			continue
		}
		if l := joinLive(liveKey{boot(h).RunID, h.Site}, h.Name); l != nil {
			a.joined[h.Name] = l
			continue
		}
		a.hosts[h.Site] = append(a.hosts[h.Site], h)
	}
	return a
}

// start starts h's worker as a step of its site's allocation, obtaining the
// allocation first if no other host of the site has. gone is called once
// the worker is gone and its allocation released if it was the last.
func (as *allocations) start(ctx context.Context, h inventory.Host, b Boot, opt Options, gone func()) (*Worker, error) {
	if a := as.joined[h.Name]; a != nil {
		return startStep(ctx, a, h, b, opt, as.ev, gone)
	}
	as.mu.Lock()
	a, ok := as.sites[h.Site]
	if !ok {
		site := siteNamed(as.inv, h.Site)
		a = &allocation{site: site, sched: sched.SchedulerFor(string(site.Launcher)), ready: make(chan struct{}), users: len(as.hosts[h.Site]),
			key: liveKey{b.RunID, h.Site}}
		as.sites[h.Site] = a
		go func() {
			a.err = a.obtain(ctx, as, as.hosts[h.Site])
			if a.err == nil {
				a.register()
			}
			close(a.ready)
		}()
	}
	as.mu.Unlock()
	select {
	case <-a.ready:
	case <-ctx.Done():
		<-a.ready // obtain sees ctx too, and releases
	}
	if a.err != nil {
		a.done()
		gone()
		return nil, a.err
	}
	return startStep(ctx, a, h, b, opt, as.ev, gone)
}

// siteNamed returns the inventory's site named name.
func siteNamed(inv *inventory.Inventory, name string) inventory.Site {
	for _, s := range inv.Sites {
		if s.Name == name {
			return s
		}
	}
	return inventory.Site{Name: name}
}

// obtain gets the allocation of hosts: the one gridtui runs in, when the
// environment names one holding them all, else a new one from the site's
// frontend, reporting its pending status until it is granted.
func (a *allocation) obtain(ctx context.Context, as *allocations, hosts []inventory.Host) error {
	names := make([]string, len(hosts))
	for i, h := range hosts {
		names[i] = h.Name
	}
	in, ok, err := a.sched.Inside(os.Getenv)
	if err != nil {
		return fmt.Errorf("deploy: site %s: %s allocation: %w", a.site.Name, a.sched.Name(), err)
	}
	if ok && containsAll(in.Names(), names) {
		a.r, a.id, a.nodes = localRunner{}, in.Job, in.Names()
		return nil
	}
	alloc, _ := a.sched.(sched.Allocator)
	if a.site.Frontend == "" || alloc == nil {
		how := "needs a frontend to ask %s for an allocation (frontend = \"host\" in sites.toml), or run gridtui inside an allocation of %s"
		if alloc == nil {
			how = "cannot ask %s for an allocation here: run gridtui inside an allocation of %s"
		}
		return fmt.Errorf("deploy: site %s: launcher %s "+how,
			a.site.Name, a.site.Launcher, a.sched.Name(), strings.Join(names, ","))
	}
	a.alloc = alloc
	fh, err := frontendHost(a.site, hosts[0])
	if err != nil {
		return err
	}
	c, err := sshclient.Connect(ctx, as.pool, fh)
	if err != nil {
		return fmt.Errorf("deploy: site %s: frontend: %w", a.site.Name, err)
	}
	a.r = sshRunner{c}
	cores := 0 // the most any host asks for: one worker per node uses them all
	for _, h := range hosts {
		cores = max(cores, h.Cores)
	}
	return a.request(ctx, as.ev, names, cores)
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// request runs the allocation command and waits for its grant.
func (a *allocation) request(ctx context.Context, ev *emitter, names []string, cores int) error {
	what := fmt.Sprintf("%s allocation of %s on %s", a.sched.Name(), strings.Join(names, ","), a.r)
	stderr := &lineTail{onLine: func(l string) {
		if id := a.alloc.JobID(l); id != "" {
			a.mu.Lock()
			a.pending = id
			a.mu.Unlock()
		}
	}}
	p, err := a.r.start(ctx, a.alloc.AllocCommand(strings.Join(names, ","), cores, a.site.Batch), stderr)
	if err != nil {
		return fmt.Errorf("deploy: site %s: %s: %w", a.site.Name, what, err)
	}
	a.hold = p
	granted := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(p.stdout)
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == sched.AllocLine {
				granted <- f[1:]
				break
			}
		}
		close(granted)
		io.Copy(io.Discard, p.stdout)
	}()
	tick := time.NewTicker(pendingPoll)
	defer tick.Stop()
	for {
		select {
		case g, ok := <-granted:
			if !ok {
				a.release()
				return fmt.Errorf("deploy: site %s: %s: not granted: %s", a.site.Name, what, stderr.tail())
			}
			return a.granted(g[0], g[1], names, what)
		case <-tick.C:
			a.reportPending(ctx, ev, names)
		case <-ctx.Done():
			a.release()
			why := ctx.Err()
			if errors.Is(why, context.DeadlineExceeded) {
				return fmt.Errorf("deploy: site %s: %s: not granted before the deadline (the run's wall time): %w", a.site.Name, what, why)
			}
			return fmt.Errorf("deploy: site %s: %s: %w", a.site.Name, what, why)
		}
	}
}

// granted checks that the granted node list holds every host.
func (a *allocation) granted(id, list string, names []string, what string) error {
	nodes, err := sched.ExpandNodeSet(list)
	if err == nil && !containsAll(nodes, names) {
		err = fmt.Errorf("it holds %s", list)
	}
	a.id, a.nodes = id, nodes
	if err != nil {
		a.release()
		return fmt.Errorf("deploy: site %s: %s: job %s: %w", a.site.Name, what, id, err)
	}
	return nil
}

// reportPending asks the scheduler about the waiting job and reports it as
// every host's PhasePending event.
func (a *allocation) reportPending(ctx context.Context, ev *emitter, names []string) {
	a.mu.Lock()
	id := a.pending
	a.mu.Unlock()
	detail := "waiting for " + a.sched.Name()
	if id != "" {
		qctx, cancel := context.WithTimeout(ctx, statusTimeout)
		out, err := a.r.output(qctx, a.alloc.StatusCommand(id))
		cancel()
		if p, perr := a.alloc.StatusOf(id, out); err == nil && perr == nil {
			detail = a.sched.Name() + " " + p.String()
		}
	}
	for _, n := range names {
		ev.emit(n, PhasePending, 0, detail, nil)
	}
}

// done records that a worker of the allocation is gone (or never started);
// the last one releases it.
func (a *allocation) done() {
	a.mu.Lock()
	a.users--
	last := a.users == 0
	a.closed = a.closed || last
	a.mu.Unlock()
	if last {
		a.release()
	}
}

// release gives the allocation back: the allocation command's stdin closes
// (it ends, and the scheduler frees the nodes), and the job is cancelled in
// case the command could not say so (still waiting, or gone).
func (a *allocation) release() {
	a.relOnce.Do(func() {
		a.unregister()
		if a.hold == nil {
			return // gridtui runs inside this allocation: not ours to release
		}
		a.hold.stdin.Close()
		ended := make(chan struct{})
		go func() { a.hold.wait(); close(ended) }()
		a.mu.Lock()
		id := a.pending
		a.mu.Unlock()
		if a.id != "" {
			id = a.id
		}
		if id == "" || a.id == "" {
			a.hold.kill()
		}
		select {
		case <-ended:
		case <-time.After(releaseGrace):
			a.hold.kill()
		}
		if id != "" {
			ctx, cancel := context.WithTimeout(context.Background(), cancelTimeout)
			a.r.output(ctx, a.alloc.CancelCommand(id))
			cancel()
		}
	})
}

// startStep starts h's worker as a step of allocation a.
func startStep(ctx context.Context, a *allocation, h inventory.Host, b Boot, opt Options, ev *emitter, gone func()) (*Worker, error) {
	w := &Worker{Host: h, done: make(chan struct{}), stderr: newTail(), timeout: opt.stopTimeout(), ev: ev}
	cmd := a.sched.StepCommand(a.id, h.Name, "cd "+shQuote(remoteWorkdir(h))+" && exec ./"+binaryName+" worker")
	p, err := a.r.start(ctx, cmd, w.stderr)
	if err != nil {
		a.done()
		gone()
		return nil, fmt.Errorf("deploy: worker on %s (%s job %s): %w", h.Name, a.sched.Name(), a.id, err)
	}
	w.stdin, w.kill = p.stdin, p.kill
	w.Hello, err = handshake(ctx, p.stdin, p.stdout, b, opt.helloTimeout(), p.kill)
	if err != nil {
		p.kill()
		p.wait()
		a.done()
		gone()
		if tail := strings.TrimSpace(w.stderr.String()); tail != "" {
			return nil, fmt.Errorf("deploy: worker on %s (%s job %s): %w: %s", h.Name, a.sched.Name(), a.id, err, tail)
		}
		return nil, fmt.Errorf("deploy: worker on %s (%s job %s): %w", h.Name, a.sched.Name(), a.id, err)
	}
	go func() {
		io.Copy(ownerEvents(w, ev), p.stdout)
		err := p.wait()
		a.done() // before exited: once Stop returns, the allocation is released
		gone()
		w.exited(b.Node, err)
	}()
	return w, nil
}

// lineTail keeps the last lines written to it and hands each to onLine.
type lineTail struct {
	mu     sync.Mutex
	part   []byte
	lines  []string
	onLine func(string)
}

func (l *lineTail) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.part = append(l.part, p...)
	var done []string
	for {
		i := strings.IndexByte(string(l.part), '\n')
		if i < 0 {
			break
		}
		done = append(done, strings.TrimSpace(string(l.part[:i])))
		l.part = l.part[i+1:]
	}
	l.lines = append(l.lines, done...)
	if len(l.lines) > 8 {
		l.lines = l.lines[len(l.lines)-8:]
	}
	l.mu.Unlock()
	for _, s := range done {
		l.onLine(s)
	}
	return len(p), nil
}

func (l *lineTail) tail() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := strings.Join(append(append([]string(nil), l.lines...), strings.TrimSpace(string(l.part))), "; ")
	if s = strings.Trim(s, "; "); s == "" {
		return "the allocation command ended without a word"
	}
	return s
}
