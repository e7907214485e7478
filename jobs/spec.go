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
	WallTime time.Duration     `toml:"wall_time"`
	Output   Output            `toml:"output"`
	// Sweep, when set, makes the job a parameter sweep: each instance is
	// the job at one point of it (At). Job files write it as [sweep].
	Sweep *Sweep `toml:"-" json:",omitempty"`
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
