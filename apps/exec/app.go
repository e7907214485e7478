package exec

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// Name is the name the application registers under.
const Name = "exec"

func init() { gridapp.Register(Name, App{}) }

// App runs a user's program (C, C++, Fortran, Python over gridhpc.h) as
// the computation of every node.
type App struct{}

// Info describes the application.
func (App) Info() gridapp.Info {
	return gridapp.Info{Summary: "a program written against gridhpc.h (GRID_Send/GRID_Receive/GRID_Wait), one process per node"}
}

// maxCount bounds the counts a job gives (items, values per item, values
// per message).
const maxCount = 100_000_000

// Params declares the program, its arguments and the split of its problem.
func (App) Params() []gridapp.Param {
	return []gridapp.Param{
		gridapp.StringParam("program", "", nil, "the program's path on every host (absolute; relative: to the worker's directory; a bare name not there: looked up in PATH)"),
		gridapp.StringParam("programs", "", nil, "host=path or cluster=path pairs, split at spaces: the program's path on the hosts where it differs (a host's entry wins over its cluster's, both over program)"),
		gridapp.StringParam("args", "", nil, "the program's arguments, split at spaces"),
		gridapp.StringParam("params", "", nil, "key=value pairs, split at spaces, the program reads with GRID_Param"),
		gridapp.IntParam("items", 1, 1, maxCount, "items (planes, rows) split in contiguous ranges among the nodes"),
		gridapp.IntParam("unit", 1, 1, maxCount, "values of the result per item"),
		gridapp.IntParam("halo", 0, 0, maxCount, "values of each message to a neighbour (0: unit)"),
		gridapp.StringParam("graph", "chain", []string{"chain", "ring"}, "which ranks neighbour: the previous and next (ring: and around)"),
		gridapp.FloatParam("eps", 1e-8, 0, math.MaxFloat64, "threshold of the local test σ < eps").Above(),
		gridapp.IntParam("max_iter", 0, 0, 1_000_000_000, "iteration limit (0: none)"),
		gridapp.FloatParam("spin", 0, 0, 1e6, "microseconds the worker and the program poll for each other's next turn, yielding the CPU, before they sleep (0: sleep at once); for hosts with a core free for each worker and its program"),
		gridapp.StringParam("link", linkWindow, []string{linkWindow, linkInprocess}, "window: the worker is the node's RMNP endpoint and the program takes turns with it through a shared window; inprocess: the program is the endpoint itself, through libgridhpc_inproc.so (see docs/APPLICATIONS.md)"),
		gridapp.StringParam("library", "", nil, "link = inprocess: the path of libgridhpc_inproc.so on every host (\"\": beside the program)"),
		gridapp.FloatParam("timeout", 60, 0, 86400, "seconds a program may take for one iteration (or to start) before it counts as hung").Above(),
	}
}

// partSpec is the Spec of a node's sub-task: its range of items.
type partSpec struct{ Lo, Hi int }

// Define splits the items among the nodes and links them as a chain or a
// ring.
func (App) Define(v gridapp.Values, nodes []gridapp.Node) (gridapp.Task, error) {
	programs, err := parsePrograms(v.String("programs"))
	if err != nil {
		return gridapp.Task{}, err
	}
	if v.String("program") == "" && len(programs) == 0 {
		return gridapp.Task{}, fmt.Errorf("exec: no program: give its path in the program parameter")
	}
	if items := v.Int("items"); items < len(nodes) {
		// items defaults to 1: a job that forgot it must hear which
		// parameter to set, not that planes do not split.
		return gridapp.Task{}, fmt.Errorf("exec: items = %d cannot be split among %d nodes: set items to the number of planes, rows… the program splits, at least %d (and unit to the values of each)", items, len(nodes), len(nodes))
	}
	ranges, err := gridapp.Split(v.Int("items"), len(nodes))
	if err != nil {
		return gridapp.Task{}, fmt.Errorf("exec: %w", err)
	}
	unit := v.Int("unit")
	t := gridapp.Task{Eps: v.Float("eps"), MaxIter: v.Int("max_iter"), Parts: make([]gridapp.PartSpec, len(nodes))}
	for r, rg := range ranges {
		spec, _ := json.Marshal(partSpec{Lo: rg.Lo, Hi: rg.Hi})
		if rg.Len() > math.MaxInt32/unit {
			return gridapp.Task{}, fmt.Errorf("exec: rank %d's result: %d items of %d values is too large", r, rg.Len(), unit)
		}
		t.Parts[r] = gridapp.PartSpec{Neighbours: neighbours(r, len(nodes), v.String("graph") == "ring"), Spec: spec, Size: rg.Len()*unit + 1}
	}
	return t, nil
}

// neighbours returns rank r's neighbours on a chain or a ring of n.
func neighbours(r, n int, ring bool) []int {
	var nb []int
	if r > 0 {
		nb = append(nb, r-1)
	} else if ring && n > 2 {
		nb = append(nb, n-1)
	}
	if r < n-1 {
		nb = append(nb, r+1)
	} else if ring && n > 2 {
		nb = append(nb, 0)
	}
	return nb
}

// NewPart starts the program on this worker and hands it its sub-task.
func (App) NewPart(v gridapp.Values, sub gridapp.Subtask) (gridapp.Part, error) {
	var s partSpec
	if err := json.Unmarshal(sub.Spec, &s); err != nil {
		return nil, fmt.Errorf("exec: sub-task %q: %w", sub.Spec, err)
	}
	unit := v.Int("unit")
	halo := v.Int("halo")
	if halo == 0 {
		halo = unit
	}
	m := subtaskMsg{rank: sub.Rank, ranks: sub.Ranks, cores: sub.Cores, neighbours: sub.Neighbours,
		lo: s.Lo, hi: s.Hi, unit: unit, size: (s.Hi - s.Lo) * unit, eps: v.Float("eps"), halo: halo, params: paramPairs(v)}
	if halo > math.MaxInt32/16 {
		return nil, fmt.Errorf("exec: halo of %d values is too large", halo)
	}
	path, err := programPath(v.String("program"), v.String("programs"), sub)
	if err != nil {
		return nil, err
	}
	timeout := time.Duration(v.Float("timeout") * float64(time.Second))
	args := strings.Fields(v.String("args"))
	if v.String("link") == linkInprocess {
		lib, err := libraryPath(v.String("library"), path)
		if err != nil {
			return nil, err
		}
		win, err := newWindow(8) // the program's iteration count
		if err != nil {
			return nil, err
		}
		p, err := startProgram(path, args, sub.Rank, sub.Cores, win, 0, sub.Log, linkEnv+"="+linkInprocess, libEnv+"="+lib)
		if err != nil {
			win.close()
			return nil, err
		}
		return newInprocPart(p, win, m, v, timeout), nil
	}
	win, err := newWindow(16 * halo * len(sub.Neighbours)) // out and in per neighbour
	if err != nil {
		return nil, err
	}
	spin := time.Duration(v.Float("spin") * float64(time.Microsecond))
	p, err := startProgram(path, args, sub.Rank, sub.Cores, win, spin, sub.Log, linkEnv+"="+linkWindow)
	if err != nil {
		win.close()
		return nil, err
	}
	pt, err := newPart(p, win, m, timeout)
	if err != nil {
		return nil, err
	}
	if pt.ckBytes > 0 {
		return ckPart{pt}, nil
	}
	return pt, nil
}

// Assemble concatenates the parts' values in rank order. gridtui cannot
// re-measure a program's solution: the residual shown is the largest σ the
// programs reported last.
func (App) Assemble(v gridapp.Values, t gridapp.Task, results [][]float64) (gridapp.Result, error) {
	var res gridapp.Result
	sigma := 0.0
	for r, part := range results {
		if len(part) != t.Parts[r].Size {
			return res, fmt.Errorf("exec: rank %d: %d values, want %d", r, len(part), t.Parts[r].Size)
		}
		n := len(part) - 1
		res.Solution = append(res.Solution, part[:n]...)
		sigma = max(sigma, part[n])
	}
	sum := 0.0
	for _, x := range res.Solution {
		sum += x
	}
	res.Residual, res.Reported, res.OK = sigma, true, !math.IsNaN(sum)
	res.Figures = []gridapp.Figure{
		{Name: "sum of the values", Value: sum, Text: fmt.Sprintf("%.17g over %d values", sum, len(res.Solution))},
	}
	return res, nil
}

// paramPairs is the string GRID_Param searches: the "params" pairs first
// (they win), then every other job parameter as key=value in name order
// (e.g. GRID_Param(sub, "eps"), "items"), leaving out a value with a space
// or a tab, which the split at spaces would cut.
func paramPairs(v gridapp.Values) string {
	enc := v.Encode()
	names := make([]string, 0, len(enc))
	for k := range enc {
		names = append(names, k)
	}
	sort.Strings(names)
	out := []string{enc["params"]}
	for _, k := range names {
		if x := enc[k]; k != "params" && !strings.ContainsAny(x, " \t") {
			out = append(out, k+"="+x)
		}
	}
	return strings.TrimSpace(strings.Join(out, " "))
}
