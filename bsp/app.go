package bsp

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// Program is a Go BSP program: the SPMD function every process runs
// between bsp_begin and bsp_end, with the job's checked parameters. What
// it returns as figures (process 0's are kept) goes into the run's report.
type Program struct {
	Summary string
	Params  []gridapp.Param
	SPMD    func(ctx context.Context, m *Machine, v gridapp.Values) ([]gridapp.Figure, error)
}

// Register registers p as the application name, so that a job (app =
// name) runs it on its nodes, one process per node, over the run's RMNP
// links (every pair linked, synchronous): the Go form of apps/bsp.
func Register(name string, p Program) { gridapp.Register(name, goApp{name: name, p: p}) }

// Supersteps is implemented by the applications that are BSP programs
// (this package's, apps/bsp): their jobs run under the synchronous scheme
// unless told otherwise.
type Supersteps interface {
	Supersteps()
}

// Supersteps marks a Go BSP program.
func (goApp) Supersteps() {}

type goApp struct {
	name string
	p    Program
}

func (a goApp) Info() gridapp.Info      { return gridapp.Info{Summary: a.p.Summary} }
func (a goApp) Params() []gridapp.Param { return a.p.Params }

// Define links every process to every other.
func (a goApp) Define(v gridapp.Values, nodes []gridapp.Node) (gridapp.Task, error) {
	t := gridapp.Task{Eps: 1, Parts: make([]gridapp.PartSpec, len(nodes))}
	for r := range nodes {
		var nb []int
		for q := range nodes {
			if q != r {
				nb = append(nb, q)
			}
		}
		t.Parts[r] = gridapp.PartSpec{Neighbours: nb, Spec: []byte("{}"), Size: figuresLen}
	}
	return t, nil
}

// CheckScheme refuses asynchronous links.
func (a goApp) CheckScheme(_ gridapp.Values, _ gridapp.Task, async bool) error {
	if async {
		return fmt.Errorf("bsp: %s is a BSP program: it needs scheme = \"sync\"", a.name)
	}
	return nil
}

func (a goApp) NewPart(v gridapp.Values, sub gridapp.Subtask) (gridapp.Part, error) {
	return &goPart{a: a, v: v, sub: sub}, nil
}

// Assemble reports process 0's figures, and the processes' supersteps.
func (a goApp) Assemble(v gridapp.Values, t gridapp.Task, results [][]float64) (gridapp.Result, error) {
	if len(results) == 0 {
		return gridapp.Result{}, errors.New("bsp: no process")
	}
	figs, err := decodeFigures(results[0])
	var profiles [][]gridapp.SuperstepGroup
	for _, r := range results {
		if len(r) == figuresLen {
			profiles = append(profiles, DecodeProfile(r[figProfile:]))
		}
	}
	return gridapp.Result{Reported: true, OK: err == nil, Figures: figs, Supersteps: MaxGroups(profiles)}, err
}

type goPart struct {
	a      goApp
	v      gridapp.Values
	sub    gridapp.Subtask
	result []float64
	m      *Machine
	resume *resume // from Restore, for Calculate
}

func (pt *goPart) Sweep() float64         { return 0 }
func (pt *goPart) Outgoing(int) []float64 { return []float64{} }
func (pt *goPart) Halo(int) []float64     { return []float64{} }
func (pt *goPart) Result() []float64      { return pt.result }
func (pt *goPart) Close()                 {}

// Calculate runs the SPMD function as this process.
func (pt *goPart) Calculate(ctx context.Context, c gridapp.Comm) (gridapp.Outcome, error) {
	t, err := CommTransport(c, pt.sub.Neighbours)
	if err != nil {
		return gridapp.Outcome{}, err
	}
	m := New(t, pt.sub.Rank, pt.sub.Ranks)
	pt.m = m
	if pt.resume != nil {
		pt.resume.restoreInto(m)
	}
	checkpointHook(m, c)
	m.onSync = func() {
		c.Progress(m.Superstep(), 0)
		if h, ok := c.(gridapp.Host); ok {
			s := m.Stats()
			h.Usage(gridapp.Usage{Compute: s.Compute, Send: s.Comm, Wait: s.Wait})
		}
	}
	if h, ok := c.(gridapp.Host); ok {
		m.links = func(pid int) string {
			for i, q := range pt.sub.Neighbours {
				if q == pid {
					net, _, _ := h.Link(i)
					return net
				}
			}
			return "self"
		}
	}
	figs, err := pt.a.p.SPMD(ctx, m, pt.v)
	if err == nil {
		err = m.End(ctx)
	}
	var re *RuleError
	if errors.As(err, &re) {
		panic(gridapp.Failure{Err: err})
	}
	if err != nil {
		return gridapp.Outcome{}, err
	}
	if pt.sub.Rank != 0 {
		figs = nil
	}
	pt.result = encodeFigures(figs)
	EncodeProfile(pt.result[figProfile:], m.profile.Groups())
	return gridapp.Outcome{Iterations: m.Superstep(), Converged: true}, nil
}

// Network returns the label of the network this process's link to pid
// runs on ("unix", "ethernet"…; "self" for itself, "" outside the engine).
func (m *Machine) Network(pid int) string {
	if m.links == nil {
		return ""
	}
	return m.links(pid)
}

// figuresLen is the size of a process's result: its figures as JSON, the
// byte count first, then the bytes eight to a value; then, from
// figProfile, its supersteps (EncodeProfile).
const (
	figProfile = 1 + 8192/8
	figuresLen = figProfile + ProfileLen
)

func encodeFigures(figs []gridapp.Figure) []float64 {
	r := make([]float64, figuresLen)
	b, _ := json.Marshal(figs)
	if len(b) > 8*(figProfile-1) {
		b, _ = json.Marshal([]gridapp.Figure{{Name: "figures", Text: "too many to report"}})
	}
	r[0] = float64(len(b))
	for i := 0; i < len(b); i += 8 {
		var w [8]byte
		copy(w[:], b[i:])
		r[1+i/8] = math.Float64frombits(binary.LittleEndian.Uint64(w[:]))
	}
	return r
}

func decodeFigures(r []float64) ([]gridapp.Figure, error) {
	if len(r) != figuresLen || !(r[0] >= 0 && r[0] <= 8*(figProfile-1)) {
		return nil, fmt.Errorf("bsp: a process's result of %d values", len(r))
	}
	n := int(r[0])
	b := make([]byte, 0, n+8)
	for i := 0; i < (n+7)/8; i++ {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(r[1+i]))
	}
	var figs []gridapp.Figure
	if err := json.Unmarshal(b[:n], &figs); err != nil {
		return nil, fmt.Errorf("bsp: a process's figures: %w", err)
	}
	return figs, nil
}
