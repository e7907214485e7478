package engine

import (
	"bytes"
	"fmt"
	"github.com/gridtui/gridtui/engine/solve"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gridtui/gridtui/deploy"
)

// longObstacle is the problem of the failure tests: one whose runs on the
// local grid last far longer than a fault takes to be injected. At n = 48
// a synchronous run on 8 local workers reaches ε = 1e-15 in a few thousand
// fast iterations, at times before the snapshot that triggers the fault
// has arrived, and the test then sees a run complete instead of failing;
// at n = 96 it needs about four times the iterations, each eight times the
// work.
var longObstacle = map[string]string{"n": "96", "eps": "1e-15"}

// fault is a failure injected into a run by its hooks: once every node has
// passed an iteration, a signal to one node's worker (or another action),
// and the time the first failure is named after it. The failure tests of
// the engine share it.
type fault struct {
	mu       sync.Mutex
	pids     map[string]int
	signaled time.Time
	detected time.Time
	died     time.Time // when a killed process's main thread was gone (a zombie or reaped)
	allDied  time.Time // when every thread of it was
	first    string    // node the first failure named
	firstMsg string
}

// faultAt sets opt's OnWorkers, OnSnapshot and OnLog to send sig to node's
// worker once every node is past iteration after; a zero sig calls act
// instead (e.g. the cancel of the run's context).
func faultAt(opt *RunOptions, node string, sig syscall.Signal, after int, act func()) *fault {
	f := &fault{pids: map[string]int{}}
	opt.OnWorkers = func(ws []*deploy.Worker) {
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, w := range ws {
			f.pids[w.Host.Name] = w.Hello.PID
		}
	}
	opt.OnSnapshot = func(s Snapshot) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if !f.signaled.IsZero() {
			return
		}
		for _, st := range s.Nodes {
			if st.Iteration < after {
				return
			}
		}
		f.signaled = time.Now()
		if sig == 0 {
			act()
			return
		}
		pid := f.pids[node]
		syscall.Kill(pid, sig)
		if sig == syscall.SIGKILL {
			go f.watchDeath(pid)
		}
	}
	opt.OnLog = func(ev solve.LogEvent) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if (strings.HasPrefix(ev.Text, "FAILED") || strings.HasPrefix(ev.Text, "ABORTED")) && f.detected.IsZero() {
			f.detected, f.first, f.firstMsg = time.Now(), ev.Node, ev.Text
		}
	}
	return f
}

// watchDeath notes when process pid's main thread is gone (a zombie or
// reaped) and when every thread of it is: a SIGKILL ends a process only
// once each of its threads is scheduled, which on a crowded host is not at
// once, and its sockets close only then.
func (f *fault) watchDeath(pid int) {
	stat := fmt.Sprintf("/proc/%d/stat", pid)
	task := fmt.Sprintf("/proc/%d/task", pid)
	for range 120_000 {
		b, err := os.ReadFile(stat)
		zombie := err != nil
		if i := bytes.LastIndexByte(b, ')'); i > 0 && i+2 < len(b) && b[i+2] == 'Z' {
			zombie = true
		}
		if zombie {
			f.mu.Lock()
			if f.died.IsZero() {
				f.died = time.Now()
			}
			f.mu.Unlock()
			if ents, err := os.ReadDir(task); err != nil || len(ents) <= 1 {
				f.mu.Lock()
				f.allDied = time.Now()
				f.mu.Unlock()
				return
			}
		}
		time.Sleep(time.Millisecond)
	}
}

// deathLags are the times from the signal to the killed process's main
// thread's end and to its last thread's (0 where not seen).
func (f *fault) deathLags() (main, all time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	since := func(t time.Time) time.Duration {
		if t.IsZero() {
			return 0
		}
		return t.Sub(f.signaled)
	}
	return since(f.died), since(f.allDied)
}

// times returns when the fault was injected and when the first failure
// was named (zero if not).
func (f *fault) times() (signaled, detected time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.signaled, f.detected
}

// lag is the time from the fault to the first failure named.
func (f *fault) lag() time.Duration {
	s, d := f.times()
	return d.Sub(s)
}

// falseFailure describes the first failure if it named another node than
// victim, "" otherwise.
func (f *fault) falseFailure(victim string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.detected.IsZero() || f.first == victim {
		return ""
	}
	return f.first + ": " + f.firstMsg
}

// allPIDs lists the run's worker processes.
func (f *fault) allPIDs() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	var all []int
	for _, p := range f.pids {
		all = append(all, p)
	}
	return all
}
