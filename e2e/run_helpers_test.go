//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gridtui/gridtui/probe"
)

// The parts of `gridtui run --json` output the tests read (engine.Report,
// engine.LogEvent, engine.Snapshot as JSON, keys in snake_case).
type (
	netTraffic struct {
		Network  string `json:"network"`
		Messages uint64 `json:"messages"`
		Bytes    uint64 `json:"bytes"`
	}
	nodeReport struct {
		Node       string       `json:"node"`
		Rank       int          `json:"rank"`
		Iterations int          `json:"iterations"`
		Traffic    []netTraffic `json:"traffic"`
		Err        string       `json:"err"`
		OwnerHeld  float64      `json:"owner_held_seconds"`
		OwnerHolds int          `json:"owner_holds"`
	}
	runReport struct {
		Outcome    string        `json:"outcome"`
		FailedNode string        `json:"failed_node"`
		Cause      string        `json:"cause"`
		Nodes      []nodeReport  `json:"nodes"`
		Traffic    []netTraffic  `json:"traffic"`
		Routes     []probe.Route `json:"routes"`
		Checked    bool          `json:"checked"`
		Residual   float64       `json:"true_residual"`
		Figures    []struct {
			Name  string  `json:"name"`
			Value float64 `json:"value"`
			Text  string  `json:"text"`
		} `json:"figures"`
		FiguresOK  bool          `json:"figures_ok"`
		Warnings   []string      `json:"warnings"`
		Recoveries []recoveryRep `json:"recoveries"`
	}
	// recoveryRep is one loss the run survived (report.recoveries[]).
	recoveryRep struct {
		Node    string  `json:"node"`
		Cause   string  `json:"cause"`
		Rank    int     `json:"rank"`
		To      string  `json:"to"`
		How     string  `json:"how"`
		From    uint64  `json:"from_iteration"`
		Seconds float64 `json:"seconds"`
	}
	logEvent struct {
		Node string `json:"node"`
		Text string `json:"text"`
	}
	snapshot struct {
		Nodes []struct {
			Node      string   `json:"node"`
			Rank      int      `json:"rank"`
			Iteration int      `json:"iteration"`
			Load      *float64 `json:"load"`
			State     string   `json:"state"`
			Held      *struct {
				Reason string  `json:"reason"`
				Stale  float64 `json:"stale_seconds"`
			} `json:"held"`
		} `json:"nodes"`
	}
)

// figure returns the value of the application's figure name, or NaN.
func (r *runReport) figure(name string) float64 {
	for _, f := range r.Figures {
		if f.Name == name {
			return f.Value
		}
	}
	return math.NaN()
}

// runOutput is what one `gridtui run --json` printed, decoded.
type runOutput struct {
	code   int
	report *runReport
	logs   []logEvent
	raw    string
	// loaded lists the nodes whose statuses carried their host's load.
	loaded map[string]bool
}

// logged reports whether some log line contains every one of words.
func (o *runOutput) logged(words ...string) bool {
	for _, l := range o.logs {
		text := l.Node + " " + l.Text
		ok := true
		for _, w := range words {
			ok = ok && strings.Contains(text, w)
		}
		if ok {
			return true
		}
	}
	return false
}

// bytesOn returns a traffic list's bytes on network.
func bytesOn(ts []netTraffic, network string) uint64 {
	for _, t := range ts {
		if t.Network == network {
			return t.Bytes
		}
	}
	return 0
}

// liveRun is a `gridtui run --json` in progress.
type liveRun struct {
	cmd      *exec.Cmd
	cancel   context.CancelFunc
	mu       sync.Mutex
	out      runOutput
	progress chan int // the lowest iteration of each snapshot
	// snaps receives the snapshots as they come (dropped when full).
	snaps chan snapshot
	done  chan struct{}
}

// startRun starts `gridtui run --json --no-record args...` in the console
// namespace; it is killed after timeout at the latest.
func startRun(t *testing.T, g *Grid, timeout time.Duration, args ...string) *liveRun {
	t.Helper()
	return startRunOf(t, g, gridtuiBinary(t), timeout, args...)
}

// startRunOf is startRun of bin, gridtui or a program built on it.
func startRunOf(t *testing.T, g *Grid, bin string, timeout time.Duration, args ...string) *liveRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	argv := append([]string{bin, "--sites", g.SitesFile, "run", "--json", "--no-record"}, args...)
	cmd := g.ConsoleCommand(ctx, argv...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	r := &liveRun{cmd: cmd, cancel: cancel, progress: make(chan int, 1), snaps: make(chan snapshot, 256), done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { r.cancel(); <-r.done })
	go r.read(stdout)
	return r
}

// read decodes the event lines until the command ends.
func (r *liveRun) read(stdout io.Reader) {
	defer close(r.done)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var raw strings.Builder
	for sc.Scan() {
		line := sc.Bytes()
		raw.Write(line)
		raw.WriteByte('\n')
		r.decode(line)
	}
	err := r.cmd.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.out.raw = raw.String()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		r.out.code = ee.ExitCode()
	default:
		r.out.code = -1 // killed: the run outlived its timeout
	}
}

func (r *liveRun) decode(line []byte) {
	var ev struct {
		Event string
		Data  json.RawMessage
	}
	if json.Unmarshal(line, &ev) != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch ev.Event {
	case "log":
		var l logEvent
		if json.Unmarshal(ev.Data, &l) == nil {
			r.out.logs = append(r.out.logs, l)
		}
	case "report":
		var rep runReport
		if json.Unmarshal(ev.Data, &rep) == nil {
			r.out.report = &rep
		}
	case "snapshot":
		var s snapshot
		if json.Unmarshal(ev.Data, &s) == nil && len(s.Nodes) > 0 {
			lo := s.Nodes[0].Iteration
			for _, n := range s.Nodes {
				lo = min(lo, n.Iteration)
				if n.Load != nil {
					if r.out.loaded == nil {
						r.out.loaded = map[string]bool{}
					}
					r.out.loaded[n.Node] = true
				}
			}
			select {
			case r.progress <- lo:
			default:
			}
			select {
			case r.snaps <- s:
			default:
			}
		}
	}
}

// waitIterations waits until every node has done at least n iterations.
func (r *liveRun) waitIterations(t *testing.T, n int, timeout time.Duration) {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case lo := <-r.progress:
			if lo >= n {
				return
			}
		case <-r.done:
			t.Fatalf("the run ended before %d iterations:\n%s", n, r.out.raw)
		case <-deadline:
			t.Fatalf("no node reached %d iterations in %v", n, timeout)
		}
	}
}

// wait waits for the run to end and returns what it printed.
func (r *liveRun) wait(t *testing.T) *runOutput {
	t.Helper()
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	t.Logf("gridtui run → exit %d\n%s", r.out.code, tail(r.out.raw, 60))
	if r.out.code == -1 {
		t.Fatalf("gridtui run did not end by itself")
	}
	return &r.out
}

// runJob runs a job to its end.
func runJob(t *testing.T, g *Grid, args ...string) *runOutput {
	t.Helper()
	return startRun(t, g, 3*time.Minute, args...).wait(t)
}

// tail keeps the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return s
	}
	return "… " + strconv.Itoa(len(lines)-n) + " lines …\n" + strings.Join(lines[len(lines)-n:], "\n")
}

// nicBytes reads a host's receive byte counters of eth0 and ib0 from the
// kernel, the ground truth the run's own counters are checked against.
func nicBytes(t *testing.T, g *Grid, host string) map[string]uint64 {
	t.Helper()
	out := map[string]uint64{}
	for _, nic := range []string{"eth0", "ib0"} {
		s, err := g.Exec(context.Background(), host, "cat", "/sys/class/net/"+nic+"/statistics/rx_bytes")
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
		if err != nil {
			t.Fatalf("%s: %s rx_bytes %q: %v", host, nic, s, err)
		}
		out[nic] = n
	}
	return out
}
