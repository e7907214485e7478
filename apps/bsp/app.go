package bsp

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/bsp"
)

// Name is the name the application registers under.
const Name = "bsp"

func init() { gridapp.Register(Name, App{}) }

// App runs a BSPlib program, one process per node.
type App struct{}

// Info describes the application.
func (App) Info() gridapp.Info {
	return gridapp.Info{Summary: "a BSPlib program (bsp.h: bsp_sync, bsp_put, bsp_get, bsp_send…), one process per node"}
}

// Params declares the program and its arguments.
func (App) Params() []gridapp.Param {
	return []gridapp.Param{
		gridapp.StringParam("program", "", nil, "the program's path on every host (absolute; relative: to the worker's directory; a bare name not there: looked up in PATH)"),
		gridapp.StringParam("args", "", nil, "the program's arguments, split at spaces"),
		gridapp.FloatParam("timeout", 600, 0, 86400, "seconds a process may go without a BSPlib call (a superstep's computation) before it counts as hung; 0: no limit"),
		gridapp.BoolParam("shared", true, "processes that all run on one host meet in shared memory: their barrier, and supersteps of puts only, skip the workers"),
	}
}

// Supersteps marks a BSP program (bsp.Supersteps): its jobs default to
// the synchronous scheme.
func (App) Supersteps() {}

// Define links every process to every other: a superstep is a total
// exchange. The part's Spec is empty; its result is resultLen values.
func (App) Define(v gridapp.Values, nodes []gridapp.Node) (gridapp.Task, error) {
	if v.String("program") == "" {
		return gridapp.Task{}, fmt.Errorf("bsp: no program: give its path in the program parameter")
	}
	t := gridapp.Task{Eps: 1, Parts: make([]gridapp.PartSpec, len(nodes))}
	for r := range nodes {
		var nb []int
		for q := range nodes {
			if q != r {
				nb = append(nb, q)
			}
		}
		t.Parts[r] = gridapp.PartSpec{Neighbours: nb, Spec: []byte("{}"), Size: resultLen}
	}
	return t, nil
}

// CheckScheme refuses asynchronous links: BSP's supersteps need every
// message of a superstep delivered.
func (App) CheckScheme(_ gridapp.Values, _ gridapp.Task, async bool) error {
	if async {
		return fmt.Errorf("bsp: a BSP program needs scheme = \"sync\" (every put, get and message of a superstep is delivered at its barrier)")
	}
	return nil
}

// NewPart starts the program on this worker as process sub.Rank.
func (App) NewPart(v gridapp.Values, sub gridapp.Subtask) (gridapp.Part, error) {
	path, err := locate(v.String("program"), sub.Rank)
	if err != nil {
		return nil, err
	}
	p, err := start(path, strings.Fields(v.String("args")), sub.Rank, sub.Ranks, sub.Cores)
	if err != nil {
		return nil, err
	}
	return &part{p: p, sub: sub, timeout: time.Duration(v.Float("timeout") * float64(time.Second)), noShare: !v.Bool("shared")}, nil
}

// The result of a process: its totals, then the tail of its output, its
// bytes packed eight to a value.
const (
	resIdle = iota
	resSupersteps
	resCompute // seconds
	resComm
	resWait
	resOut
	resIn
	resHMax
	resOutLen
	resProfile // the supersteps (bsp.EncodeProfile)
	resHead    = resProfile + bsp.ProfileLen
	resultLen  = resHead + outputMax/8
)

func encodeResult(s bsp.Stats, groups []gridapp.SuperstepGroup, out []byte, idle bool) []float64 {
	r := make([]float64, resultLen)
	bsp.EncodeProfile(r[resProfile:resHead], groups)
	if idle {
		r[resIdle] = 1
	}
	r[resSupersteps] = float64(s.Supersteps)
	r[resCompute], r[resComm], r[resWait] = s.Compute.Seconds(), s.Comm.Seconds(), s.Wait.Seconds()
	r[resOut], r[resIn], r[resHMax] = float64(s.BytesOut), float64(s.BytesIn), float64(s.HMax)
	out = out[max(0, len(out)-outputMax):]
	r[resOutLen] = float64(len(out))
	for i := 0; i < len(out); i += 8 {
		var w [8]byte
		copy(w[:], out[i:])
		r[resHead+i/8] = math.Float64frombits(leUint64(w))
	}
	return r
}

func leUint64(w [8]byte) uint64 {
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(w[i])
	}
	return v
}

// decodeOutput returns the output a process's result carries.
func decodeOutput(r []float64) string {
	n := int(r[resOutLen])
	if n < 0 || n > outputMax {
		return ""
	}
	b := make([]byte, 0, n+8)
	for i := 0; i < (n+7)/8; i++ {
		v := math.Float64bits(r[resHead+i])
		for k := range 8 {
			b = append(b, byte(v>>(8*k)))
		}
	}
	return string(b[:n])
}

// Assemble reports the supersteps, each process's times and h-relation,
// and each process's output.
func (App) Assemble(v gridapp.Values, t gridapp.Task, results [][]float64) (gridapp.Result, error) {
	res := gridapp.Result{Reported: true, OK: true}
	var total bsp.Stats
	var profiles [][]gridapp.SuperstepGroup
	for pid, r := range results {
		if len(r) != resultLen {
			return res, fmt.Errorf("bsp: process %d: %d values, want %d", pid, len(r), resultLen)
		}
		if r[resIdle] == 1 {
			continue
		}
		profiles = append(profiles, bsp.DecodeProfile(r[resProfile:resHead]))
		s := bsp.Stats{Supersteps: int(r[resSupersteps]), Compute: secs(r[resCompute]), Comm: secs(r[resComm]), Wait: secs(r[resWait]),
			BytesOut: int64(r[resOut]), BytesIn: int64(r[resIn]), HMax: int64(r[resHMax])}
		total.Supersteps = max(total.Supersteps, s.Supersteps)
		total.Compute, total.Comm, total.Wait = total.Compute+s.Compute, total.Comm+s.Comm, total.Wait+s.Wait
		total.HMax = max(total.HMax, s.HMax)
		total.BytesOut += s.BytesOut
		res.Figures = append(res.Figures, gridapp.Figure{Name: fmt.Sprintf("process %d", pid), Value: s.Compute.Seconds(),
			Text: fmt.Sprintf("compute %v, communication %v, barrier %v; out %d B, in %d B, largest h %d B",
				s.Compute.Round(time.Microsecond), s.Comm.Round(time.Microsecond), s.Wait.Round(time.Microsecond), s.BytesOut, s.BytesIn, s.HMax)})
		if out := strings.TrimSpace(sanitize(decodeOutput(r))); out != "" {
			res.Figures = append(res.Figures, gridapp.Figure{Name: fmt.Sprintf("output of process %d", pid), Text: out})
		}
	}
	res.Figures = append([]gridapp.Figure{
		{Name: "supersteps", Value: float64(total.Supersteps)},
		{Name: "largest h-relation", Value: float64(total.HMax), Text: fmt.Sprintf("%d bytes", total.HMax)},
		{Name: "time in computation, communication, barrier", Value: total.Compute.Seconds(),
			Text: fmt.Sprintf("%v, %v, %v (summed over the processes)", total.Compute.Round(time.Microsecond), total.Comm.Round(time.Microsecond), total.Wait.Round(time.Microsecond))},
	}, res.Figures...)
	res.Supersteps = bsp.MaxGroups(profiles)
	return res, nil
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
