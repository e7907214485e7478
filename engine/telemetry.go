package engine

import "github.com/gridtui/gridtui/engine/solve"

// The per-node telemetry a run's Snapshot and Report carry is engine/solve's:
// these names let the console and the command line read it as the engine's.

// NodeState is a node's state in its run (solve.NodeState).
type NodeState = solve.NodeState

// Node states (solve.StateStarting…).
const (
	StateStarting   = solve.StateStarting
	StateActive     = solve.StateActive
	StateInactive   = solve.StateInactive
	StateTerminated = solve.StateTerminated
	StateFailed     = solve.StateFailed
	StateAborted    = solve.StateAborted
)

// NodeStatus is one node's telemetry (solve.NodeStatus).
type NodeStatus = solve.NodeStatus

// NetTraffic is one network's traffic counters of a node (solve.NetTraffic).
type NetTraffic = solve.NetTraffic

// LogEvent is a line for the console's event log (solve.LogEvent).
type LogEvent = solve.LogEvent

// OwnerHold is why, and since how long, a host's owner policy holds a
// node's part (solve.OwnerHold).
type OwnerHold = solve.OwnerHold
