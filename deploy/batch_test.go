package deploy

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// deployTo puts the test binary in the frontend's (shared) home.
func (s *slurmTest) deploy(t *testing.T, inv *inventory.Inventory, hosts []inventory.Host, opt Options) {
	t.Helper()
	sum, err := Deploy(testCtx(t), inv, hosts, opt)
	if err != nil {
		t.Fatalf("deploy through the frontend: %v", err)
	}
	for _, r := range sum.Results {
		if !strings.Contains(r.Detail, "nodes share its home") {
			t.Errorf("%s: %q, want the frontend's home", r.Host, r.Detail)
		}
	}
}

// A job waits while another allocation holds one of its nodes, its pending
// status reported with Slurm's reason, then runs; stopping its workers
// leaves no allocation and no worker behind.
func TestSlurmPendingThenRuns(t *testing.T) {
	s := newSlurm(t, "gtn1", "gtn2")
	inv, hosts, opt := s.inventory(t)
	s.deploy(t, inv, hosts, opt)
	release := s.hold(t, "gtn1")
	var log eventLog
	opt.Events = log.add
	pending := make(chan string, 1)
	opt.Events = func(e Event) {
		log.add(e)
		if e.Phase == PhasePending && strings.Contains(e.Detail, "Resources") {
			select {
			case pending <- e.Detail:
			default:
			}
		}
	}
	type res struct {
		ws  []*Worker
		err error
	}
	done := make(chan res, 1)
	go func() {
		ws, err := StartWorkers(testCtx(t), inv, hosts, testBoot, opt)
		done <- res{ws, err}
	}()
	select {
	case d := <-pending:
		if !strings.Contains(d, "Slurm job") || !strings.Contains(d, "position 1") {
			t.Errorf("pending detail %q, want the Slurm job, its reason and its position", d)
		}
	case r := <-done:
		t.Fatalf("workers started while gtn1 was held: %v", r.err)
	case <-time.After(30 * time.Second):
		t.Fatal("no pending status with reason Resources")
	}
	release()
	r := <-done
	if r.err != nil {
		t.Fatalf("start after the holder left: %v", r.err)
	}
	for i, w := range r.ws {
		if want := testBoot(hosts[i]).Node; w.Hello.Node != want {
			t.Errorf("worker %d says it is %s, want %s", i, w.Hello.Node, want)
		}
	}
	if j := s.jobs(); !strings.Contains(j, "gridtui RUNNING") {
		t.Errorf("jobs while the workers run: %q, want gridtui's allocation running", j)
	}
	stopAll(r.ws, opt)
	s.waitNoJobs(t, "after the workers stopped")
	for _, w := range r.ws {
		if syscall.Kill(w.Hello.PID, 0) == nil {
			t.Errorf("worker %s (pid %d) still runs", w.Hello.Node, w.Hello.PID)
		}
	}
}

// A killed worker ends its step with an error naming the node; the
// allocation goes when the other worker is stopped.
func TestSlurmKilledWorker(t *testing.T) {
	s := newSlurm(t, "gtn1", "gtn2")
	inv, hosts, opt := s.inventory(t)
	s.deploy(t, inv, hosts, opt)
	ws, err := StartWorkers(testCtx(t), inv, hosts, testBoot, opt)
	if err != nil {
		t.Fatal(err)
	}
	syscall.Kill(ws[0].Hello.PID, syscall.SIGKILL)
	select {
	case <-ws[0].Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the killed worker's step did not end")
	}
	if err := ws[0].Err(); !errors.Is(err, ErrWorkerExited) || !strings.Contains(err.Error(), "gtn1") {
		t.Errorf("killed worker: %v, want ErrWorkerExited naming gtn1", err)
	}
	stopAll(ws, opt)
	s.waitNoJobs(t, "after a killed worker")
}

// Cancelling while the allocation waits (Ctrl-C) and a deadline passing
// before it is granted (the wall time) both leave no job behind, and say
// which site and nodes were waited for.
func TestSlurmNotGranted(t *testing.T) {
	s := newSlurm(t, "gtn1", "gtn2")
	inv, hosts, opt := s.inventory(t)
	s.hold(t, "gtn2")
	ctx, cancel := context.WithTimeout(testCtx(t), 4*time.Second)
	defer cancel()
	_, err := StartWorkers(ctx, inv, hosts, testBoot, opt)
	if err == nil || !strings.Contains(err.Error(), "not granted before the deadline") || !strings.Contains(err.Error(), "site hpc") {
		t.Errorf("deadline while pending: %v, want not granted, naming the site", err)
	}
	ctx, cancel = context.WithCancel(testCtx(t))
	opt.Events = func(e Event) {
		if e.Phase == PhasePending {
			cancel()
		}
	}
	_, err = StartWorkers(ctx, inv, hosts, testBoot, opt)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled while pending: %v, want context.Canceled", err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for strings.Contains(s.jobs(), "gridtui") && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	if j := s.jobs(); strings.Contains(j, "gridtui") {
		t.Errorf("gridtui's job left after it was given up: %s", j)
	}
}

// A worker that cannot start (no binary on the shared home) fails the
// start, naming the node, and its allocation is released.
func TestSlurmWorkerFails(t *testing.T) {
	s := newSlurm(t, "gtn1", "gtn2")
	inv, hosts, opt := s.inventory(t)
	_, err := StartWorkers(testCtx(t), inv, hosts, testBoot, opt)
	if err == nil || !strings.Contains(err.Error(), "gtn1") || !strings.Contains(err.Error(), "Slurm job") {
		t.Errorf("start without a binary: %v, want an error naming gtn1 and the Slurm job", err)
	}
	s.waitNoJobs(t, "after a failed start")
}

// gridtui running inside an allocation (SLURM_JOB_ID, SLURM_JOB_NODELIST)
// starts its workers as steps of that allocation with srun here, and leaves
// the allocation, which is not its own, in place.
func TestSlurmInsideAllocation(t *testing.T) {
	s := newSlurm(t, "gtn1", "gtn2")
	inv, hosts, opt := s.inventory(t)
	s.deploy(t, inv, hosts, opt)
	release, id, list := s.holdJob(t, "gtn1,gtn2")
	t.Setenv("HOME", s.front.home)
	t.Setenv("SLURM_CONF", s.conf)
	t.Setenv("SLURM_JOB_ID", id)
	t.Setenv("SLURM_JOB_NODELIST", list)
	inv.Sites[0].Frontend = "" // not needed inside an allocation
	ws, err := StartWorkers(testCtx(t), inv, hosts, testBoot, opt)
	if err != nil {
		t.Fatalf("start inside allocation %s (%s): %v", id, list, err)
	}
	stopAll(ws, opt)
	if j := s.jobs(); !strings.Contains(j, id+" holder RUNNING") {
		t.Errorf("the allocation gridtui ran in is gone: %q", j)
	}
	release()
	s.waitNoJobs(t, "after the holder left")
}

// A worker started again on a killed worker's node (a recovery) starts as
// a step of the run's own allocation, which still holds that node: a new
// allocation of it would wait behind the run's forever. The allocation
// goes when the last worker, old or new, is stopped.
func TestSlurmRestartInAllocation(t *testing.T) {
	s := newSlurm(t, "gtn1", "gtn2")
	inv, hosts, opt := s.inventory(t)
	s.deploy(t, inv, hosts, opt)
	ws, err := StartWorkers(testCtx(t), inv, hosts, testBoot, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer stopAll(ws, opt)
	syscall.Kill(ws[0].Hello.PID, syscall.SIGKILL)
	select {
	case <-ws[0].Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the killed worker's step did not end")
	}
	ctx, cancel := context.WithTimeout(testCtx(t), 30*time.Second)
	defer cancel()
	again, err := StartWorkers(ctx, inv, hosts[:1], testBoot, opt)
	if err != nil {
		t.Fatalf("a new worker on %s in the run's allocation: %v", hosts[0].Name, err)
	}
	if jobs := strings.Split(s.jobs(), "\n"); len(jobs) != 1 {
		t.Errorf("jobs %q, want the run's one allocation", jobs)
	}
	stopAll(ws, opt)
	if s.jobs() == "" {
		t.Error("the allocation went while its new worker runs")
	}
	stopAll(again, opt)
	s.waitNoJobs(t, "after the last worker")
}
