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
	Name     string       `toml:"name"`
	App      string       `toml:"app"` // a registered application (apps/gridapp)
	Obstacle ObstacleSpec `toml:"obstacle"`
	// Params are the parameters of an application other than the obstacle
	// problem (whose n and eps are in Obstacle), as typed; validated against
	// the application's declarations.
	Params   map[string]string `toml:"params"`
	Scheme   Scheme            `toml:"scheme"`
	Detector Detector          `toml:"detector"` // empty: the scheme's default
	Nodes    NodeSelection     `toml:"nodes"`
	Cores    int               `toml:"cores"` // cores per node; 0: each host's cores
	Groups   []Group           `toml:"group"` // empty: group by cluster, ≤ 32 per group
	MaxIter  int               `toml:"max_iterations"`
	WallTime time.Duration     `toml:"wall_time"`
	Output   Output            `toml:"output"`
}

// ObstacleSpec holds the obstacle problem's parameters in a job file.
type ObstacleSpec struct {
	N   int     `toml:"n"`
	Eps float64 `toml:"eps"`
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

// Output says what to write after a run.
type Output struct {
	Dir string `toml:"dir,omitempty"`
	VTI bool   `toml:"vti,omitempty"`
	Raw bool   `toml:"raw,omitempty"`
}
