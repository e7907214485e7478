package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/jobs"
)

// lowIteration returns the lowest iteration of a snapshot's nodes, -1 when
// one of them has stopped for good (the run is ending).
func lowIteration(s Snapshot) int {
	low := -1
	for i, st := range s.Nodes {
		if st.State.Final() {
			return -1
		}
		if i == 0 || st.Iteration < low {
			low = st.Iteration
		}
	}
	return low
}

// TestRunJoin: a host joins a synchronous run without spares mid-run
// through Control, then a worker of the run is killed: its part moves to
// the joined host (a spare), and the run ends ok below ε. A join of a host
// the inventory does not know, of one holding a part and of one already a
// spare is refused. The joins are asked from iteration 30 on; the kill
// comes at the first snapshot of a run still iterating once all four were
// answered, whatever the timing (a run that converged before is a failure
// saying so).
func TestRunJoin(t *testing.T) {
	spec := recoverySpec(jobs.Synchronous, 32, "1e-9") // thousands of iterations
	spec.Nodes = jobs.NodeSelection{Clusters: []string{"alpha"}}
	spec.Params["blocks"] = "4x1x1"
	ctl := NewControl()
	opt := RunOptions{Inventory: loadInventory(t, ""), StoreDir: t.TempDir(), Control: ctl}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type outcome struct {
		host string
		err  error
	}
	hosts := []string{"gamma-9", "alpha-1", "beta-4", "beta-4"}
	outcomes := make(chan outcome, len(hosts))
	var (
		mu                      sync.Mutex
		pids                    = map[string]int{}
		asked, answered, killed bool
		killedAt                int
		wg                      sync.WaitGroup
	)
	trackPIDs(&opt, &mu, pids)
	opt.OnSnapshot = func(s Snapshot) {
		mu.Lock()
		defer mu.Unlock()
		low := lowIteration(s)
		switch {
		case low < 0 || killed:
		case !asked && low >= 30:
			asked = true
			wg.Go(func() { // never on the event loop: it answers the joins
				for _, h := range hosts {
					outcomes <- outcome{h, ctl.Join(ctx, h)}
				}
				mu.Lock()
				answered = true
				mu.Unlock()
			})
		case answered:
			killed, killedAt = true, low
			syscall.Kill(pids["alpha-3"], syscall.SIGKILL)
		}
	}
	rep, err := Run(context.Background(), spec, opt)
	cancel() // a join still waiting gives up now
	wg.Wait()
	close(outcomes)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	wants := []string{"not a host of the inventory", "already holds a part", "", "already a spare"}
	i := 0
	for o := range outcomes {
		switch want := wants[i]; {
		case want == "" && o.err != nil:
			t.Errorf("join %s: %v", o.host, o.err)
		case want != "" && (!errors.Is(o.err, ErrJoin) || !strings.Contains(fmt.Sprint(o.err), want)):
			t.Errorf("join %s: %v, want ErrJoin saying %q", o.host, o.err, want)
		}
		i++
	}
	mu.Lock()
	defer mu.Unlock()
	if i != len(hosts) || !killed {
		t.Fatalf("%d of %d joins answered, alpha-3 killed %v: the run converged first (raise n)\n%s", i, len(hosts), killed, summary(rep))
	}
	if rep.Outcome != "ok" || len(rep.Recoveries) == 0 {
		t.Fatalf("outcome %q, recoveries %+v", rep.Outcome, rep.Recoveries)
	}
	t.Logf("alpha-3 killed at iteration %d; recoveries %+v", killedAt, rep.Recoveries)
	if rc := rep.Recoveries[0]; rc.Node != "alpha-3" || rc.How != "spare" || rc.To != "beta-4" {
		t.Errorf("recovery %+v: want alpha-3's part on the joined spare beta-4", rc)
	}
	if !rep.Checked || !(rep.Residual < rep.Eps) {
		t.Errorf("true residual %g (checked %v), want below ε = %g", rep.Residual, rep.Checked, rep.Eps)
	}
}

// slowJoin makes the start of a joining worker on host call before first
// (the tests' slow or hung host); other starts are real.
func slowJoin(t *testing.T, host string, before func(ctx context.Context) error) {
	start := startRecoveryWorkers
	t.Cleanup(func() { startRecoveryWorkers = start })
	startRecoveryWorkers = func(ctx context.Context, inv *inventory.Inventory, hosts []inventory.Host, boot func(inventory.Host) deploy.Boot, opt deploy.Options) ([]*deploy.Worker, error) {
		if len(hosts) == 1 && hosts[0].Name == host {
			if err := before(ctx); err != nil {
				return nil, err
			}
		}
		return start(ctx, inv, hosts, boot, opt)
	}
}

// joinAt has opt's run ask ctl to join host once every node is past
// iteration after (from a goroutine: never on the event loop); the outcome
// comes on the returned channel.
func joinAt(opt *RunOptions, ctx context.Context, ctl *Control, host string, after int) <-chan error {
	out := make(chan error, 1)
	var once sync.Once
	opt.OnSnapshot = func(s Snapshot) {
		if low := lowIteration(s); low >= after {
			once.Do(func() { go func() { out <- ctl.Join(ctx, host) }() })
		}
	}
	return out
}

// TestRunJoinEndsPromptly: a run that converges while a host is still
// joining (its start hangs, as to a host that never answers) ends at once
// — it used to wait for the start, up to restartTimeout —, and the join's
// caller is told the run ended.
func TestRunJoinEndsPromptly(t *testing.T) {
	hung := make(chan time.Time, 1)
	slowJoin(t, "beta-4", func(ctx context.Context) error {
		hung <- time.Now()
		<-ctx.Done()
		return ctx.Err()
	})
	spec := recoverySpec(jobs.Synchronous, 32, "1e-9") // a few thousand iterations: the join starts well before the end
	spec.Nodes = jobs.NodeSelection{Clusters: []string{"alpha"}}
	spec.Params["blocks"] = "4x1x1"
	ctl := NewControl()
	opt := RunOptions{Inventory: loadInventory(t, ""), StoreDir: t.TempDir(), Control: ctl, NoRecord: true}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	joined := joinAt(&opt, ctx, ctl, "beta-4", 10)
	rep, err := Run(context.Background(), spec, opt)
	ended := time.Now()
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	var at time.Time
	select {
	case at = <-hung:
	default:
		t.Fatalf("the run converged before beta-4 started joining (raise n)\n%s", summary(rep))
	}
	if took := ended.Sub(at); took > restartTimeout/3 {
		t.Errorf("Run returned %v after a join started hanging, want well within restartTimeout (%v)", took, restartTimeout)
	}
	select {
	case err := <-joined:
		if !errors.Is(err, ErrJoin) || !strings.Contains(fmt.Sprint(err), "the run ended") {
			t.Errorf("join beta-4: %v, want ErrJoin saying the run ended", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("join beta-4: no answer after the run ended")
	}
}

// TestRunJoinGivenUp: a join whose caller gives up (its ctx ends) before
// the worker is up does not join: the caller gets ErrJoin saying so, the
// worker that starts afterwards is stopped and never a worker of the run.
func TestRunJoinGivenUp(t *testing.T) {
	gaveUp := make(chan struct{})
	slowJoin(t, "beta-4", func(ctx context.Context) error {
		select {
		case <-gaveUp:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	spec := recoverySpec(jobs.Synchronous, 32, "1e-9")
	spec.Nodes = jobs.NodeSelection{Clusters: []string{"alpha"}}
	spec.Params["blocks"] = "4x1x1"
	ctl := NewControl()
	opt := RunOptions{Inventory: loadInventory(t, ""), StoreDir: t.TempDir(), Control: ctl, NoRecord: true}
	var (
		mu      sync.Mutex
		listed  bool     // beta-4 among the run's workers
		stopped []string // log lines saying beta-4 did not join
	)
	opt.OnWorkers = func(ws []*deploy.Worker) {
		mu.Lock()
		defer mu.Unlock()
		for _, w := range ws {
			listed = listed || w.Host.Name == "beta-4"
		}
	}
	opt.OnLog = func(e solve.LogEvent) {
		mu.Lock()
		defer mu.Unlock()
		if e.Node == "beta-4" && strings.Contains(e.Text, "did not join") {
			stopped = append(stopped, e.Text)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	jctx, jcancel := context.WithCancel(ctx)
	joined := make(chan error, 1)
	var once sync.Once
	opt.OnSnapshot = func(s Snapshot) {
		if lowIteration(s) >= 10 {
			once.Do(func() {
				go func() {
					time.AfterFunc(200*time.Millisecond, jcancel)
					err := ctl.Join(jctx, "beta-4")
					joined <- err
					close(gaveUp) // the worker starts now
				}()
			})
		}
	}
	rep, err := Run(ctx, spec, opt)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	select {
	case err := <-joined:
		if !errors.Is(err, ErrJoin) || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "given up") {
			t.Errorf("join beta-4: %v, want ErrJoin saying it was given up", err)
		}
	default:
		t.Fatalf("the run converged before beta-4 was asked to join (raise n)\n%s", summary(rep))
	}
	mu.Lock()
	defer mu.Unlock()
	if listed || len(stopped) == 0 {
		t.Errorf("beta-4 among the run's workers %v; log %q, want it stopped, never a worker of the run", listed, stopped)
	}
	t.Logf("log: %q", stopped)
}

// TestJoinGatewayGap: a host whose site needs a gateway the run does not
// run is refused, naming the host, its site and the gateway. A host of
// the run's own site, of a site whose gateway runs (the attempt in which
// it takes a part tells the gateway its address), or of a site whose
// gateway was lost, is no gap.
func TestJoinGatewayGap(t *testing.T) {
	inv := loadInventory(t, "../testdata/sites/local_gateways.toml")
	var logs []string
	s := &submission{spec: jobs.Spec{Name: "gw"}, plan: &Plan{Ranks: []string{"alpha-1"}}, inv: inv,
		logf: func(node, format string, args ...any) { logs = append(logs, node+": "+fmt.Sprintf(format, args...)) }}
	s.joins = newJoining(context.Background(), inv, RunOptions{}, &[]*deploy.Worker{})
	defer s.joins.finish()
	call := newJoinCall()
	s.join(joinReq{host: "beta-2", call: call})
	select {
	case err := <-call.reply:
		for _, want := range []string{"beta-2", "site east", "gw-east on beta-1", "not running"} {
			if !errors.Is(err, ErrJoin) || !strings.Contains(err.Error(), want) {
				t.Errorf("join beta-2 to a run of site west without gateways: %v, want ErrJoin saying %q", err, want)
			}
		}
	default:
		t.Fatalf("join beta-2: not refused at once (log %q)", logs)
	}
	if len(s.joins.pending) != 0 || len(logs) != 0 {
		t.Errorf("refused join: pending %v, log %q", s.joins.pending, logs)
	}
	host := func(name string) inventory.Host {
		for _, h := range inv.Hosts() {
			if h.Name == name {
				return h
			}
		}
		t.Fatalf("no host %s", name)
		return inventory.Host{}
	}
	if why := s.gatewayGap(host("alpha-2")); why != "" {
		t.Errorf("alpha-2 of the run's own site: %q", why)
	}
	s.gateways = map[string]*runGateway{"west": {Name: "gw-west", Host: host("alpha-1")}, "east": {Name: "gw-east", Host: host("beta-1")}}
	if why := s.gatewayGap(host("beta-2")); why != "" {
		t.Errorf("beta-2 with gw-east running: %q, want no gap", why)
	}
	s.gwLost = map[string]*runGateway{"east": s.gateways["east"]}
	delete(s.gateways, "east")
	if why := s.gatewayGap(host("beta-2")); why != "" {
		t.Errorf("beta-2 of a site whose gateway was lost (its pairs go by SSH tunnels): %q", why)
	}
}

// TestRunSpareEnded: a spare whose worker process ends mid-run is said in
// the log, and the next loss does not pick it: the lost node's part goes
// to a new worker on its host.
func TestRunSpareEnded(t *testing.T) {
	spec := recoverySpec(jobs.Synchronous, 32, "1e-9")
	spec.Nodes = jobs.NodeSelection{Clusters: []string{"alpha"}}
	spec.Params["blocks"] = "4x1x1"
	spec.Resilience.Spares = 1
	opt := RunOptions{Inventory: loadInventory(t, ""), StoreDir: t.TempDir(), NoRecord: true}
	var (
		mu    sync.Mutex
		pids  = map[string]int{}
		spare string
		ended bool // the log said the spare's end
		stage int  // 1: the spare killed, 2: alpha-3 too
	)
	opt.OnWorkers = func(ws []*deploy.Worker) {
		mu.Lock()
		defer mu.Unlock()
		for _, w := range ws {
			pids[w.Host.Name] = w.Hello.PID
			if spare == "" && !strings.HasPrefix(w.Host.Name, "alpha-") {
				spare = w.Host.Name
			}
		}
	}
	opt.OnLog = func(e solve.LogEvent) {
		mu.Lock()
		defer mu.Unlock()
		ended = ended || (e.Node == spare && strings.Contains(e.Text, "spare's worker process exited"))
	}
	opt.OnSnapshot = func(s Snapshot) {
		mu.Lock()
		defer mu.Unlock()
		low := lowIteration(s)
		switch {
		case low < 30 || spare == "":
		case stage == 0:
			stage = 1
			syscall.Kill(pids[spare], syscall.SIGKILL)
		case stage == 1 && ended:
			stage = 2
			syscall.Kill(pids["alpha-3"], syscall.SIGKILL)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep, err := Run(ctx, spec, opt)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	mu.Lock()
	defer mu.Unlock()
	switch {
	case stage == 1 && !ended:
		t.Fatalf("spare %s killed: the log never said its end\n%s", spare, summary(rep))
	case stage != 2:
		t.Fatalf("spare %q, stage %d: the run converged first (raise n)\n%s", spare, stage, summary(rep))
	}
	if len(rep.Recoveries) == 0 {
		t.Fatalf("no recovery\n%s", summary(rep))
	}
	if rc := rep.Recoveries[0]; rc.Node != "alpha-3" || rc.How != "new worker on its host" || rc.To != "alpha-3" {
		t.Errorf("recovery %+v: want alpha-3's part on a new worker on its host, not on the dead spare %s", rc, spare)
	}
}

// A run that ends while hosts are still joining answers every one of them
// (more than the channel holds), refusing those that started too late.
func TestJoiningFinish(t *testing.T) {
	j := newJoining(context.Background(), loadInventory(t, ""), RunOptions{}, nil)
	n := cap(j.done) + 4
	calls := make([]*joinCall, n)
	for i := range calls {
		calls[i] = newJoinCall()
		j.wg.Go(func() { j.done <- joinResult{host: "beta-4", call: calls[i]} })
	}
	done := make(chan struct{})
	go func() {
		j.finish()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("finish did not return")
	}
	for i, c := range calls {
		select {
		case err := <-c.reply:
			if !errors.Is(err, ErrJoin) || !strings.Contains(err.Error(), "the run ended") {
				t.Errorf("join %d: %v, want ErrJoin saying the run ended", i, err)
			}
		default:
			t.Errorf("join %d: no answer", i)
		}
	}
	if (*joining)(nil).pendingHosts() != nil {
		t.Error("no joining: hosts pending")
	}
}

// TestJoinCallGivenUp: a call given up takes no answer (the worker it
// started is then stopped); one answered first keeps its answer for the
// caller, even as its ctx ends.
func TestJoinCallGivenUp(t *testing.T) {
	c := newJoinCall()
	if !c.leave() || c.answer(nil) {
		t.Error("a call given up took an answer")
	}
	c = newJoinCall()
	if !c.answer(nil) || c.leave() || c.answer(ErrJoin) {
		t.Error("an answered call was given up, or answered twice")
	}
	if err := <-c.reply; err != nil {
		t.Errorf("answer %v, want the first (nil)", err)
	}
}

// TestJoinSocketClientGone: a join asked through the control socket whose
// client goes before the answer (gridtui join interrupted) is given up,
// so that its worker, if it starts, is stopped.
func TestJoinSocketClientGone(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ResumeDir), 0o700); err != nil {
		t.Fatal(err)
	}
	ctl := NewControl()
	stop := serveControl(dir, "run1", ctl, func(string, string, ...any) {})
	defer stop()
	c, err := net.Dial("unix", socketPath(dir, "run1"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "join beta-4\n")
	var r joinReq
	select {
	case r = <-ctl.joins:
	case <-time.After(10 * time.Second):
		t.Fatal("no join request came through the socket")
	}
	if r.host != "beta-4" {
		t.Fatalf("join request for %q, want beta-4", r.host)
	}
	c.Close()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		r.call.mu.Lock()
		gone := r.call.gone
		r.call.mu.Unlock()
		if gone {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the join was not given up when its client went")
		}
	}
	if r.call.answer(nil) {
		t.Error("a join whose client went took its answer")
	}
}
