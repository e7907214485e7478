package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/engine/worker"
	"github.com/gridtui/gridtui/grid"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/rmnp"
)

// followedRun is a submission of a 4-node run on the local grid whose nodes
// reported the given states, with a real (loopback) submitter endpoint and
// no workers: follow then ends on the context or on a failure.
func followedRun(t *testing.T, states ...solve.NodeState) *submission {
	t.Helper()
	inv := inventory.Embedded()
	spec := jobs.Spec{Name: "aborted-job", App: "obstacle", Params: map[string]string{"n": "16", "eps": "1e-8"},
		Scheme: jobs.Asynchronous, Nodes: jobs.NodeSelection{Any: len(states)}, Cores: 1, WallTime: time.Minute}.WithDefaults()
	plan, err := PlanJob(spec, inv, grid.LocalNodes(inv))
	if err != nil {
		t.Fatal(err)
	}
	s, err := newSubmission(spec, plan, nil, RunOptions{NoRecord: true}, func(string, string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	cfg := rmnp.DefaultConfig()
	cfg.RunID, cfg.Secret, cfg.Self = [16]byte{'a', 'b', 'o', 'r', 't'}, []byte("abort-test-secret-0123456789"), worker.SubmitterID
	if s.ep, err = rmnp.Listen(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.ep.Close() })
	s.start = time.Now()
	for r, st := range states {
		s.statuses[r].State, s.statuses[r].Iteration = st, 100+r
	}
	return s
}

// TestAbortedRun ends a run by its context while its nodes are starting,
// active and inactive (one already terminated): the error wraps the
// context's error (and ErrRunAborted, ErrRunFailed) and names the run; the
// report reads "aborted" for the run and for every node that had not
// finished, in text and JSON. Before, the error only said "engine: run
// failed: interrupted: context canceled" and the nodes were listed active.
func TestAbortedRun(t *testing.T) {
	cause := errors.New("console: user pressed A")
	tests := map[string]struct {
		ctx  func() (context.Context, context.CancelFunc)
		is   []error
		isnt error
		want string
	}{
		"cancelled": {ctx: func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, is: []error{context.Canceled}, isnt: context.DeadlineExceeded,
			want: "engine: run aborted-job aborted: interrupted: context canceled"},
		"deadline": {ctx: func() (context.Context, context.CancelFunc) {
			return context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		}, is: []error{context.DeadlineExceeded}, isnt: context.Canceled,
			want: "engine: run aborted-job aborted: interrupted: context deadline exceeded"},
		"cancelled with a cause": {ctx: func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(cause)
			return ctx, func() {}
		}, is: []error{context.Canceled, cause}, isnt: context.DeadlineExceeded,
			want: "engine: run aborted-job aborted: interrupted: console: user pressed A"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := followedRun(t, solve.StateActive, solve.StateInactive, solve.StateStarting, solve.StateTerminated)
			var logged []string
			s.logf = func(_, format string, a ...any) { logged = append(logged, fmt.Sprintf(format, a...)) }
			ctx, cancel := tc.ctx()
			defer cancel()
			s.follow(ctx, make(chan inbound))
			rep, err := s.report(), s.err()
			for _, l := range logged {
				if strings.HasPrefix(l, "FAILED") {
					t.Errorf("an aborted run logs %q", l) // the outcome says aborted
				}
			}
			for _, target := range append(tc.is, ErrRunAborted, ErrRunFailed) {
				if !errors.Is(err, target) {
					t.Errorf("error %q does not wrap %v", err, target)
				}
			}
			if errors.Is(err, tc.isnt) {
				t.Errorf("error %q wraps %v", err, tc.isnt)
			}
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %q, want %q", err, tc.want)
			} else if n := strings.Count(err.Error(), "engine:"); n != 1 {
				t.Errorf("error %q: %d × \"engine:\"", err, n)
			}
			if rep.Outcome != "aborted" || rep.FailedNode != "" || !strings.HasPrefix(rep.Cause, "interrupted: ") {
				t.Errorf("report outcome %q node %q cause %q", rep.Outcome, rep.FailedNode, rep.Cause)
			}
			checkAbortedNodes(t, rep, solve.StateAborted, solve.StateAborted, solve.StateAborted, solve.StateTerminated)
		})
	}
}

// checkAbortedNodes checks the report's node states, its text and its JSON.
func checkAbortedNodes(t *testing.T, rep *Report, want ...solve.NodeState) {
	t.Helper()
	if len(rep.Nodes) != len(want) {
		t.Fatalf("%d nodes in the report, want %d", len(rep.Nodes), len(want))
	}
	for i, n := range rep.Nodes {
		if n.State != want[i] || n.Iterations != 100+i {
			t.Errorf("rank %d: %v after %d iterations, want %v after %d", n.Rank, n.State, n.Iterations, want[i], 100+i)
		}
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, l := range strings.Split(b.String(), "\n") {
		for i, n := range rep.Nodes {
			if f := strings.Fields(l); len(f) > 1 && f[1] == n.Node {
				rows++
				if !strings.Contains(l, " "+want[i].String()+" ") {
					t.Errorf("report line %q lacks %q", l, want[i])
				}
			}
		}
		for _, st := range []solve.NodeState{solve.StateActive, solve.StateInactive, solve.StateStarting} {
			if strings.Contains(l, " "+st.String()+" ") {
				t.Errorf("report line %q lists a node %s", l, st)
			}
		}
	}
	if rows != len(want) {
		t.Errorf("%d node rows in the report, want %d:\n%s", rows, len(want), b.String())
	}
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Nodes []struct{ State solve.NodeState }
	}
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	for i, n := range back.Nodes {
		if n.State != want[i] {
			t.Errorf("JSON rank %d: %v, want %v", i, n.State, want[i])
		}
	}
	if want[0] == solve.StateAborted && !strings.Contains(string(js), `"State":"aborted"`) {
		t.Errorf("JSON report lacks \"aborted\": %s", js)
	}
}

// TestFailedRunCause: a worker's failure cause arrives as the text of its
// error ("engine: rank 1: …"); the run's error and the report print it after
// the node's name with the package prefix once, and the nodes the run
// stopped read "aborted", not "active". A failure of another attempt is
// dropped.
func TestFailedRunCause(t *testing.T) {
	s := followedRun(t, solve.StateActive, solve.StateFailed, solve.StateInactive, solve.StateTerminated)
	node := s.plan.Ranks[1]
	// A failure of the attempt before (a recovery's), arriving late, is
	// dropped: the run fails with its own attempt's.
	stale, err := worker.EncodeMsg(worker.MsgFailed, worker.Failure{Node: s.plan.Ranks[0], Cause: "engine: rank 0: halo from rank 1: rmnp: peer down", Run: s.run + 2})
	if err != nil {
		t.Fatal(err)
	}
	m, err := worker.EncodeMsg(worker.MsgFailed, worker.Failure{Node: node, Cause: "engine: rank 1: message from peer 9, not a neighbour", Run: s.run})
	if err != nil {
		t.Fatal(err)
	}
	msgs := make(chan inbound, 2)
	msgs <- inbound{src: worker.NodeID(s.plan.Ranks[0]), msg: stale}
	msgs <- inbound{src: worker.NodeID(node), msg: m}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s.follow(ctx, msgs)
	rep, err := s.report(), s.err()
	want := "engine: run failed: node " + node + ": rank 1: message from peer 9, not a neighbour"
	if err == nil || err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
	checkPrefixesOnce(t, err.Error(), 1)
	if !errors.Is(err, ErrRunFailed) || errors.Is(err, ErrRunAborted) || errors.Is(err, context.Canceled) {
		t.Errorf("error %q: wrong sentinels", err)
	}
	if rep.Outcome != "failed" || rep.FailedNode != node || rep.Cause != "rank 1: message from peer 9, not a neighbour" {
		t.Errorf("report outcome %q node %q cause %q", rep.Outcome, rep.FailedNode, rep.Cause)
	}
	if rep.Nodes[1].Err != rep.Cause {
		t.Errorf("failed node's error %q, want the cause", rep.Nodes[1].Err)
	}
	checkAbortedNodes(t, rep, solve.StateAborted, solve.StateFailed, solve.StateAborted, solve.StateTerminated)
}
