package jobs

import (
	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/apps/obstacle"
)

// The obstacle problem lives in apps/obstacle, written on the programming
// model (apps/gridapp). These names keep the job specs, the results store and
// the engine's obstacle-specific report (true residual, complementarity,
// VTI output) on the same types.

// Obstacle is the pinned obstacle problem (obstacle.Problem).
type Obstacle = obstacle.Problem

// Range is a half-open interval of plane indices (gridapp.Range).
type Range = gridapp.Range

// Slab is one node's share of the obstacle problem (obstacle.Slab).
type Slab = obstacle.Slab

// Constants of the obstacle problem.
const (
	DefaultEps   = obstacle.DefaultEps
	ObstacleLoad = obstacle.Load
	MaxN         = obstacle.MaxN
)

// Errors of the obstacle problem and of Split.
var (
	ErrInvalidObstacle = obstacle.ErrInvalid
	ErrSlab            = obstacle.ErrSlab
	ErrSplit           = gridapp.ErrSplit
)

// Functions of the obstacle problem, under their former names.
var (
	Split        = gridapp.Split
	NewSlab      = obstacle.NewSlab
	SlabBytes    = obstacle.SlabBytes
	Assemble     = obstacle.Assemble
	SerialSolve  = obstacle.SerialSolve
	SerialSweep  = obstacle.SerialSweep
	Residual     = obstacle.Residual
	Phi          = obstacle.Phi
	InitialGuess = obstacle.InitialGuess
)
