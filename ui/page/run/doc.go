// Package run is the console's Run page: a live run as the engine reports
// it (engine.Snapshot, engine.LogEvent on the console's tick) — the grid of
// nodes by state, each node's iteration and σ with its sparkline, the global
// residual on a log scale, traffic per network and through the gateways, the
// computing gain, the event log (e expands it) —, then the run's report (o)
// once it has ended. A abort asks the root (AbortRequestMsg); enter opens a
// node or an event whole. It renders only what fits on the screen, so a
// 1024-node run costs no more per frame than a screenful.
package run
