// Package worker is gridtui's worker process (ServeWorker), started on a
// grid host by the submitter (engine.Run) through deploy: it reads its Boot
// line, answers with a Hello and serves runs until its stdin closes. A
// worker is a coordinator too (coordinator.go) when the plan gives it a
// group: it forwards tasks and assignments down in waves (startup.go),
// aggregates its members' telemetry and sends it up. Each run's task links
// the worker to its neighbours (pre-flight, fallback to the next network,
// awaitLinked) and runs engine/solve's Solve on its data endpoint.
//
// The control protocol (protocol.go: tasks, assignments, telemetry,
// results, heartbeats, end of run) and the failure detector (heartbeat.go:
// φ-accrual over each peer's heartbeats, with the crowded-host excuses) are
// shared with the submitter, which imports this package for them; so is
// the coordinator hierarchy (hierarchy.go: Levels).
package worker
