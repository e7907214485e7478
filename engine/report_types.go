package engine

import "github.com/gridtui/gridtui/engine/report"

// Report is the outcome of a run as the submitter measured it (Run's
// result): report.Report, under the name Run's callers use.
type Report = report.Report

// NodeReport is one node's share of a run (report.NodeReport).
type NodeReport = report.NodeReport

// Prediction is what package predict expected of a run (report.Prediction).
type Prediction = report.Prediction

// GatewayReport is one gateway's share of a run (report.GatewayReport).
type GatewayReport = report.GatewayReport

// Snapshot is the state of a whole run at one instant, as Run emits it
// (report.Snapshot).
type Snapshot = report.Snapshot
