package predict

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// SimGridCheck is one job replayed both by the built-in replay and by
// SimGrid (the simulator dPerf used) on the same traces: the sweeps drawn,
// the platform and the messaging rules are the same, so the two must agree.
type SimGridCheck struct {
	Nodes int `json:"nodes"`
	// Sweeps is the number of sweeps replayed per node.
	Sweeps int `json:"sweeps"`
	// Replay and SimGrid are each simulator's mean time per node after
	// Sweeps sweeps; Diff is (SimGrid − Replay) / Replay, MaxDiff the
	// largest such difference of one node's time.
	Replay  float64 `json:"replay_seconds"`
	SimGrid float64 `json:"simgrid_seconds"`
	Diff    float64 `json:"diff"`
	MaxDiff float64 `json:"max_node_diff"`
	// Updates are the messages each simulator delivered in total.
	ReplayUpdates  int `json:"replay_updates"`
	SimGridUpdates int `json:"simgrid_updates"`
}

// SimGridScript is a python3-simgrid program that replays k sweeps of job
// on the platform as the built-in replay does: one host per node computing
// the sweep times the replay draws (1 flop per second), one link per
// directed neighbour pair with the network's latency and bandwidth under
// SimGrid's CM02 model (a message takes latency + bytes / bandwidth), the
// sender busy for bytes / bandwidth per message, the messages of the
// neighbour pairs across two clusters one at a time in the order SimGrid's
// clock sends them (the replay books the link between the clusters in the
// first gap; the two agree exactly where one pair crosses, as in a chain),
// a synchronous sweep
// waiting for its neighbours' halos of the previous sweep, an asynchronous
// send skipped while the previous one on its link is in flight. It prints
// each node's time after its k sweeps and the messages it sent per link,
// as JSON.
func SimGridScript(m *Model, pl Platform, job Job, k int) (string, error) {
	r, err := newReplay(m, pl, job)
	if err != nil {
		return "", err
	}
	n := len(r.sweep)
	sweeps := make([][]float64, n)
	for range k {
		for i := range n {
			sweeps[i] = append(sweeps[i], r.draw(i))
		}
	}
	type edge struct {
		To       int     `json:"to"`
		Async    bool    `json:"async"`
		Transfer float64 `json:"transfer"`
		Latency  float64 `json:"latency"`
		Bytes    float64 `json:"bytes"`
		Wire     int     `json:"wire"` // the link between clusters it shares, or −1
	}
	wires := map[*wire]int{}
	edges := make([][]edge, n)
	for i := range n {
		edges[i] = []edge{}
		for _, ed := range r.out[i] {
			w := -1
			if ed.wire != nil {
				if _, ok := wires[ed.wire]; !ok {
					wires[ed.wire] = len(wires)
				}
				w = wires[ed.wire]
			}
			edges[i] = append(edges[i], edge{To: ed.to, Async: ed.async, Transfer: ed.transfer, Latency: ed.latency, Bytes: m.LinkBytes, Wire: w})
		}
	}
	in, err := json.Marshal(map[string]any{"k": k, "sweeps": sweeps, "edges": edges})
	if err != nil {
		return "", err
	}
	return strings.Replace(simgridProgram, "@INPUT@", strconv.Quote(string(in)), 1), nil
}

// simgridProgram replays the input (@INPUT@, a JSON string) in SimGrid.
const simgridProgram = `import json, os, sys, tempfile
import simgrid
from simgrid import Actor, Engine, Mailbox, this_actor

inp = json.loads(@INPUT@)
k, sweeps, edges = inp["k"], inp["sweeps"], inp["edges"]
n = len(sweeps)

# One host per node; one link per directed neighbour pair.
xml = ['<?xml version="1.0"?>', '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
       '<platform version="4.1">', '<zone id="grid" routing="Full">']
for i in range(n):
    xml.append('<host id="h%d" speed="1f"/>' % i)
for i, out in enumerate(edges):
    for e in out:
        bw = e["bytes"] / e["transfer"] if e["transfer"] > 0 else 1e15
        xml.append('<link id="l%d_%d" bandwidth="%.17gBps" latency="%.17gs" sharing_policy="FATPIPE"/>' % (i, e["to"], bw, e["latency"]))
for i, out in enumerate(edges):
    for e in out:
        xml.append('<route src="h%d" dst="h%d" symmetrical="NO"><link_ctn id="l%d_%d"/></route>' % (i, e["to"], i, e["to"]))
xml += ['</zone>', '</platform>']
fd, path = tempfile.mkstemp(suffix=".xml")
with os.fdopen(fd, "w") as f:
    f.write("\n".join(xml))

ends = [0.0] * n
wire_free = {}
sent = [[0] * len(out) for out in edges]
sync_in = [[] for _ in range(n)]
async_in = [[] for _ in range(n)]
for i, out in enumerate(edges):
    for e in out:
        (async_in if e["async"] else sync_in)[e["to"]].append(i)

def node(i):
    for j in sync_in[i] + async_in[i]:
        Mailbox.by_name("%d>%d" % (j, i)).set_receiver(Actor.self())
    last = [None] * len(edges[i])
    for s in range(k):
        if s > 0:
            for j in sync_in[i]:
                Mailbox.by_name("%d>%d" % (j, i)).get()
        for j in async_in[i]:
            mb = Mailbox.by_name("%d>%d" % (j, i))
            while mb.ready:
                mb.get()
        this_actor.execute(sweeps[i][s])
        for x, e in enumerate(edges[i]):
            if e["async"] and last[x] is not None and not last[x].test():
                continue  # skipped: the previous message is in flight
            if e["wire"] >= 0:  # one message at a time between two clusters
                start = max(Engine.clock, wire_free.get(e["wire"], 0.0))
                wire_free[e["wire"]] = start + e["transfer"]
                this_actor.sleep_until(start)
            last[x] = Mailbox.by_name("%d>%d" % (i, e["to"])).put_async(s, int(round(e["bytes"])))
            sent[i][x] += 1
            this_actor.sleep_for(e["transfer"])
    ends[i] = Engine.clock

e = Engine(["replay", "--cfg=network/model:CM02", "--log=root.thresh:critical"])
e.load_platform(path)
os.unlink(path)
for i in range(n):
    Actor.create("n%d" % i, e.host_by_name("h%d" % i), node, i)
e.run()
print(json.dumps({"ends": ends, "sent": sent}))
`

// CheckSimGrid replays k sweeps of job on the platform with the built-in
// replay and with SimGrid (python, e.g. "python3", must import simgrid)
// and compares the nodes' times.
func CheckSimGrid(ctx context.Context, python string, m *Model, pl Platform, job Job, k int) (SimGridCheck, error) {
	c := SimGridCheck{Nodes: pl.Nodes(), Sweeps: k}
	script, err := SimGridScript(m, pl, job, k)
	if err != nil {
		return c, err
	}
	r, err := newReplay(m, pl, job)
	if err != nil {
		return c, err
	}
	ends := r.run(k)
	for i := range r.out {
		for _, ed := range r.out[i] {
			c.ReplayUpdates += ed.updates
		}
	}
	dir, err := os.MkdirTemp("", "gridtui-simgrid-")
	if err != nil {
		return c, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "replay.py")
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		return c, err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, python, path)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return c, fmt.Errorf("predict: simgrid: %s %s: %w: %s", python, path, err, strings.TrimSpace(stderr.String()))
	}
	var out struct {
		Ends []float64 `json:"ends"`
		Sent [][]int   `json:"sent"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || len(out.Ends) != len(ends) {
		return c, fmt.Errorf("predict: simgrid: %s: output is not the replay's (%v): %q", python, err, stdout.String())
	}
	for i, e := range ends {
		c.Replay += e / float64(len(ends))
		c.SimGrid += out.Ends[i] / float64(len(ends))
		if e > 0 {
			c.MaxDiff = max(c.MaxDiff, abs(out.Ends[i]-e)/e)
		}
		for _, s := range out.Sent[i] {
			c.SimGridUpdates += s
		}
	}
	if c.Replay > 0 {
		c.Diff = (c.SimGrid - c.Replay) / c.Replay
	}
	return c, nil
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
