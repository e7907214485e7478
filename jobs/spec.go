package jobs

import (
	"time"

	"github.com/gridtui/gridtui/engine/solve"
)

// Scheme is the iteration scheme of a job (solve.Scheme).
type Scheme = solve.Scheme

// Schemes (solve.Synchronous…).
const (
	Synchronous  = solve.Synchronous
	Asynchronous = solve.Asynchronous
	Hybrid       = solve.Hybrid
)

// Detector names a termination detector (solve.Detector).
type Detector = solve.Detector

// Detectors (solve.DetectTokens…).
const (
	DetectTokens   = solve.DetectTokens
	DetectActivity = solve.DetectActivity
	DetectSwitch   = solve.DetectSwitch
)

// Spec is a job: what to solve, on which nodes, how. Job files (TOML) and the
// console's composer both produce it.
type Spec struct {
	Name string `toml:"name"`
	App  string `toml:"app"` // a registered application (apps/gridapp)
	// Params are the application's parameters as typed (a job file's
	// [params], or the [obstacle] section of older files); validated
	// against the application's declarations, which give the defaults of
	// those left out.
	Params   map[string]string `toml:"params"`
	Scheme   Scheme            `toml:"scheme"`
	Detector Detector          `toml:"detector"` // empty: the scheme's default
	Nodes    NodeSelection     `toml:"nodes"`
	Cores    int               `toml:"cores"` // cores per node; 0: each host's cores
	Groups   []Group           `toml:"group"` // empty: group by cluster, ≤ 32 per group
	MaxIter  int               `toml:"max_iterations"`
	// Iterations > 0 asks for exactly that many sweeps of every part (in
	// every step), whatever σ: gridapp.Task.Sweeps, overriding the
	// application's. A synchronous run then equals the application's
	// serial loop after as many sweeps bit for bit. 0: until converged.
	Iterations int           `toml:"iterations"`
	WallTime   time.Duration `toml:"wall_time"`
	Output     Output        `toml:"output"`
	// Sweep, when set, makes the job a parameter sweep: each instance is
	// the job at one point of it (At). Job files write it as [sweep].
	Sweep *Sweep `toml:"-" json:",omitempty"`
	// Resilience says how the run survives a lost node (docs/FAILURES.md).
	Resilience Resilience `toml:"resilience"`
}

// Resilience is a job's answer to a lost node: checkpoints of every part at
// an iteration boundary, where they are kept, and where a lost part goes.
type Resilience struct {
	// Spares is the number of workers started beside the job's nodes, idle
	// until a lost node's part moves to one of them.
	Spares int `toml:"spares,omitempty"`
	// CheckpointEvery is the interval of checkpoints in iterations: 0 the
	// default (the first about 5 s into the run, at a multiple of
	// DefaultCheckpointEvery, the next ones spaced so
	// that their cost stays within 1 % of the run's time, see Auto),
	// negative none (a lost node then fails the run).
	CheckpointEvery int `toml:"checkpoint_every,omitempty"`
	// CheckpointDir is the directory checkpoints are written to, on a file
	// system every node of the job shares ("" the console's data
	// directory, shared by the local grid's workers).
	CheckpointDir string `toml:"checkpoint_dir,omitempty"`
	// MaxRecoveries bounds the recoveries of one run (0: 3): losses faster
	// than recovery end the run with the reason, never a hang.
	MaxRecoveries int `toml:"max_recoveries,omitempty"`
}

// DefaultCheckpointEvery is, for a job that names no interval, the base of
// the intervals the engine chooses (Auto): a part's first checkpoint is at
// a multiple of it (a power of 2 times it) about 5 s into the run, the
// next ones a power of 4 times it apart.
const DefaultCheckpointEvery = 200

// Every returns the checkpoint interval (0: checkpoints off); under Auto,
// its base.
func (r Resilience) Every() int {
	switch {
	case r.CheckpointEvery < 0:
		return 0
	case r.CheckpointEvery == 0:
		return DefaultCheckpointEvery
	}
	return r.CheckpointEvery
}

// Auto reports whether the engine chooses the interval (checkpoint_every
// unset): each part takes its first checkpoint about
// solve.FirstCheckpointAfter into the run, at a multiple of Every()·2^m,
// times it (serialization and the writing beside the iteration) against its
// iterations, and spaces the next ones by Every()·4^k iterations, the
// least that keeps their cost within solve.CheckpointBudget, at most
// solve.MaxCheckpointInterval apart (docs/FAILURES.md).
func (r Resilience) Auto() bool { return r.CheckpointEvery == 0 }

// Recoveries returns the bound on a run's recoveries.
func (r Resilience) Recoveries() int {
	if r.MaxRecoveries <= 0 {
		return 3
	}
	return r.MaxRecoveries
}

// NodeSelection chooses the nodes of a job. Hosts and Clusters name nodes
// explicitly; Any takes that many nodes from the selection (or from every
// live worker when nothing else is given).
type NodeSelection struct {
	Sites    []string `toml:"sites,omitempty"`
	Clusters []string `toml:"clusters,omitempty"`
	Hosts    []string `toml:"hosts,omitempty"`
	Any      int      `toml:"any,omitempty"`
}

// Group is one coordinator and the workers it serves (at most 32, P2PDC).
type Group struct {
	Coordinator string   `toml:"coordinator"`
	Workers     []string `toml:"workers"`
}

// Output says what to write after a run: the solution as VTI and raw
// float64 files for an application whose solution is a structured grid
// (gridapp.Gridded), plus what an application writes itself
// (gridapp.Outputter).
type Output struct {
	Dir string `toml:"dir,omitempty"`
	VTI bool   `toml:"vti,omitempty"`
	Raw bool   `toml:"raw,omitempty"`
}
