package gridapp

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"sync"
)

// Application is what a package registers: an iterative method the
// environment runs on a grid (GRIDHPC Sec. V-B, Fig. 4). The environment
// calls Define at the submitter ("task definition"), NewPart on every worker
// ("receive sub-tasks", "distribute sub-tasks on the cores"), drives the
// parts' sweeps and the exchanges between them ("calculate"), and calls
// Assemble with the parts' results ("results aggregation").
type Application interface {
	// Info describes the application in listings.
	Info() Info
	// Params declares the parameters a job gives the application.
	Params() []Param
	// Define builds the task for the chosen nodes (in rank order): the
	// global problem's split into one sub-task per node and which sub-tasks
	// neighbour which. An error says why the nodes or values cannot work
	// (e.g. more nodes than planes); it is shown to the user.
	Define(v Values, nodes []Node) (Task, error)
	// NewPart builds one worker's share from its sub-task. It runs on the
	// worker, so it allocates only that share.
	NewPart(v Values, sub Subtask) (Part, error)
	// Assemble gathers the parts' results (in rank order, each of the Size
	// its PartSpec announced) into the global solution and measures it.
	Assemble(v Values, t Task, results [][]float64) (Result, error)
}

// Info describes an application.
type Info struct {
	Summary string // one line: what it solves and how
}

// Node is one computing node of a job as Define sees it.
type Node struct {
	Name    string
	Cluster string
	Cores   int // cores the job gives the node's sub-task (≥ 1)
}

// Task is the application's definition of a job: the convergence threshold
// of the local test and one sub-task per node.
type Task struct {
	// Eps is the threshold of the local test (σ < Eps) and of the
	// asynchronous schemes' send test (a value moved by ≥ Eps is resent).
	Eps float64
	// MaxIter bounds the iterations of every node (0: no limit).
	MaxIter int
	// Sweeps > 0 asks for exactly that many sweeps of every part in every
	// step: a part that has done them is not swept again in the step and
	// counts as converged (σ = 0), the others as not converged whatever
	// their σ, so the step ends once every part has done them. A
	// synchronous run then equals the serial loop after the same sweeps bit
	// for bit, whatever the detector's delay.
	Sweeps int
	// Steps is the number of outer steps (e.g. time steps) of an
	// application whose Parts implement Stepper; 0 and 1 mean one. Each
	// step is iterated until the detector sees the global test pass, then
	// every part is advanced (Stepper.Advance) and the next step begins.
	Steps int
	Parts []PartSpec
}

// StepCount returns the number of outer steps of t (at least 1).
func (t Task) StepCount() int { return max(t.Steps, 1) }

// PartSpec is one node's sub-task as Define describes it.
type PartSpec struct {
	// Neighbours are the ranks this part exchanges values with, in the order
	// the Part's Outgoing and Halo index them. The relation must be
	// symmetric and the graph connected.
	Neighbours []int
	// Spec is the application's own description of the sub-task, handed to
	// NewPart on the worker (it travels on the network: keep it small, e.g.
	// index ranges, never the data itself).
	Spec []byte
	// Size is the number of values the part's Result holds.
	Size int
}

// Subtask is what NewPart receives on the worker.
type Subtask struct {
	Rank       int   // this part's index in Task.Parts
	Ranks      int   // number of parts
	Neighbours []int // as in the PartSpec
	Cores      int   // cores of the node for this part (≥ 1): size a Pool with it
	Spec       []byte
	// Node is the node this part runs on: its host's name and its cluster
	// (empty when the engine does not know them, e.g. a test's).
	Node Node
	// Log, when not nil, takes lines for the node's log (`gridtui logs`):
	// e.g. the output of a program the part runs (apps/exec). Each Write
	// is one or more complete lines.
	Log io.Writer
}

// Part is one worker's share of a task: the iteration-level interface, the
// one most applications implement (like PETSc's DMDA local callbacks, the
// application only computes on its own values and the halos the engine
// filled). The engine calls its methods from one goroutine, in turn:
//
//	for each iteration:
//	    for each neighbour i: send Outgoing(i); receive into Halo(i) (then Received(i))
//	    σ = Sweep()
//
// A synchronous link delivers the neighbour's values of the previous
// iteration; an asynchronous one the newest that arrived (Halo keeps the
// last values when nothing new came).
type Part interface {
	// Sweep performs one iteration over the part's own values using the
	// halos as they are, and returns the local residual σ (e.g. max|u'−u|).
	// It must read nothing but the part's values and its halos, so that a
	// synchronous run is bit for bit the serial one. A NaN σ fails the run.
	Sweep() float64
	// Outgoing returns the values neighbour i needs of this part's current
	// iterate. The slice may alias the part: it is read before the next
	// Sweep. Its length must not change between calls.
	Outgoing(i int) []float64
	// Halo returns the buffer the engine writes neighbour i's values into
	// (its Outgoing for this part). It keeps its contents across sweeps.
	// It must return the same slice — the same buffer, the same length —
	// for the whole run: a part that swaps iterates keeps its halos in
	// buffers of their own (or in ghost cells of an iterate it never
	// swaps, as examples/rod does) and copies them in, in Sweep or
	// Received. A halo whose buffer or length changed fails the run with
	// an error naming the application, the part and the neighbour
	// (HaloGuard).
	Halo(i int) []float64
	// Result returns the part's share of the solution (Size values).
	Result() []float64
	// Close releases the part's resources (e.g. its Pool).
	Close()
}

// HaloReceiver is implemented by a Part that must act on new halo values
// (unpack, scale, keep a history) before the next Sweep: the engine calls
// Received(i) after writing fresh values into Halo(i).
type HaloReceiver interface {
	Received(i int)
}

// Stepper is implemented by a Part of a task with several outer steps
// (Task.Steps), e.g. the time steps of an implicit scheme: an outer loop
// around the inner iterations. The environment iterates each step as a
// whole run — the scheme's exchanges and the detector's global test — and,
// once the detector has declared the step converged on every node, calls
// Advance on every part before the next step's first exchange. A step that
// ends without global convergence (MaxIter) ends the run.
//
// Advance moves the part to the next step (e.g. keeps u as the previous
// time level and starts the inner iterations from it). It must read only the
// part's own values and halos, like Sweep, and must not change the lengths
// of Outgoing and Halo. Advance is never called after the last step.
type Stepper interface {
	Advance()
}

// SchemeChecker is implemented by an application whose method is known to
// converge only under some schemes: asynchronous iterations, for one,
// converge for a contraction in a weighted maximum norm (e.g. Jacobi on a
// diagonally dominant matrix) but not for every method that converges
// synchronously. The environment calls CheckScheme at the submitter after
// Define, once every link's mode is chosen, with async true when some link
// is asynchronous (the asynchronous scheme; the hybrid one across
// clusters). An error refuses the job before any worker starts; it is shown
// to the user and should say why and what to do instead.
type SchemeChecker interface {
	CheckScheme(v Values, t Task, async bool) error
}

// Outputter is implemented by an application that writes its solution as
// files (e.g. a time series ParaView opens) when the job's output section
// asks for VTI files. base is the run's output directory joined with the
// run's name and start time; the files are named base plus a suffix of the
// application's choice.
type Outputter interface {
	// WriteOutput writes res as files and returns the paths written.
	WriteOutput(v Values, t Task, res Result, base string) ([]string, error)
}

// Gridded is implemented by an application whose assembled solution is a
// structured grid of points, so that the environment can write it for
// ParaView and numpy (a job's output: VTI, raw float64 with a JSON
// sidecar). GridShape returns the grid for the job's values; Assemble's
// Result.Solution must then hold Shape[0]·Shape[1]·Shape[2] values in C
// order, the last axis fastest (index (i·Shape[1] + j)·Shape[2] + k). An
// application that is not Gridded (a sparse matrix's unknowns) writes no
// such files: a job asking for them is refused before it starts.
type Gridded interface {
	GridShape(v Values) Grid
}

// Grid is the geometry of a structured solution: points per axis (1 for an
// axis the grid does not have), the first point's coordinates and the
// distance between points along each axis (0 reads as 1).
type Grid struct {
	Shape   [3]int
	Origin  [3]float64
	Spacing [3]float64
}

// Points returns the number of points of the grid.
func (g Grid) Points() int { return g.Shape[0] * g.Shape[1] * g.Shape[2] }

// Checker is implemented by an application that checks its assembled
// solution against conditions of its own beyond the residual (the obstacle
// problem's complementarity conditions, a conservation law, a bound). The
// environment calls Check at the submitter after Assemble and shows and
// records every Check as the application gives it; one that fails fails
// the run's verdict. An application without checks reports none: its runs
// carry no verdict but the residual's.
type Checker interface {
	Check(v Values, t Task, res Result) []Check
}

// Check is one condition an application checked on its solution: a name,
// the measured value, whether it holds, and optionally how to print it.
type Check struct {
	Name  string
	Value float64
	OK    bool
	Text  string // how to print the value and its bound, if not just the value
}

// PartDescriber is implemented by an application that can say in a few
// words which share of the problem a part holds ("planes 0–23", "box
// [0,16)×[0,32)×[0,32)"): the report's part column. Without it the
// environment shows the part's size in values.
type PartDescriber interface {
	DescribePart(v Values, t Task, rank int) string
}

// Result is an application's assembled solution and its measured figures.
type Result struct {
	// Solution is the global solution in the application's order.
	Solution []float64
	// Residual is the true global residual of Solution (e.g. one more serial
	// sweep's σ): what the report shows, not the detector's belief.
	Residual float64
	// Reported says Residual is instead the largest σ the parts reported
	// last, for an application that cannot measure its solution (a program
	// of its own, app exec): the report then does not call it the true
	// residual.
	Reported bool
	// Figures are application-specific measurements for the report (error
	// against the exact solution, checksums, complementarity).
	Figures []Figure
	// OK is false when a check of the application failed (a figure says
	// which).
	OK bool
	// Supersteps are a BSP program's supersteps, for prediction (BSP's
	// cost W + h·g + l): consecutive supersteps in a bounded number of
	// groups; nil for an application without supersteps.
	Supersteps []SuperstepGroup
}

// SuperstepGroup is a run of consecutive supersteps of a BSP program:
// how many, their computation W (seconds, the slowest process's) and
// their h-relations summed (bytes, the largest of any process's
// max(out, in)). A superstep then costs W + h·g + l on a machine of BSP
// parameters g and l.
type SuperstepGroup struct {
	Supersteps int     `json:"supersteps"`
	Work       float64 `json:"work_seconds"`
	H          int64   `json:"h_bytes"`
}

// Figure is one measured quantity of a Result.
type Figure struct {
	Name  string
	Value float64
	Text  string // how to print it, if not just the value
}

// SerialReference is implemented by applications that carry their plain
// serial solver beside them as their specification: the tests compare a
// synchronous distributed run with it bit for bit.
type SerialReference interface {
	// Serial solves the whole problem on one core, in the simplest loop,
	// and returns the solution (in Assemble's order), the iterations done
	// and the last σ.
	Serial(v Values) (solution []float64, iterations int, sigma float64, err error)
}

var (
	registryMu sync.RWMutex
	registry   = map[string]Application{}
	nameRe     = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)
)

// ErrUnknownApp is wrapped by Lookup's error.
var ErrUnknownApp = errors.New("gridapp: unknown application")

// Register makes an application available by name, as database/sql drivers
// register: call it from an init function of the application's package.
// Registering a nil application, an invalid name (lower-case letters,
// digits, '-' and '_', starting with a letter) or the same name twice is a
// programmer error and panics.
func Register(name string, app Application) {
	if app == nil {
		panic("gridapp: Register of a nil application")
	}
	if !nameRe.MatchString(name) {
		panic("gridapp: Register: invalid application name")
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[name]; dup {
		panic("gridapp: Register called twice for the same name")
	}
	registry[name] = app
}

// Lookup returns the application registered under name.
func Lookup(name string) (Application, error) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	if a, ok := registry[name]; ok {
		return a, nil
	}
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return nil, fmt.Errorf("%w %q (registered: %v)", ErrUnknownApp, name, names)
}

// Names returns the registered applications' names, sorted.
func Names() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
