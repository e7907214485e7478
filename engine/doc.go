// Package engine runs iterative jobs across workers: it is the submitter of
// GRIDHPC (Run, PlanJob), which plans a job, starts its workers and gateways,
// follows their telemetry, recovers from lost nodes and gathers the
// results into a Report, which it records in the results store. The other
// roles live in packages of their own:
//
//   - engine/solve is the iteration: one worker's share of the computation
//     (Solve) under the synchronous, asynchronous and hybrid schemes, their
//     termination detectors and the per-node telemetry (NodeStatus, which
//     this package's names alias). It imports only rmnp and the
//     applications, so that libgridhpc_inproc.so (cmd/libgridhpc-inproc)
//     links nothing else.
//   - engine/worker is the worker process (ServeWorker): coordinators,
//     heartbeats, the control protocol the submitter speaks too.
//   - engine/gateway is the gateway process (ServeGateway) of a site that
//     the others cannot reach.
//   - engine/report is what a run tells its caller: the Report (which this
//     package's Report aliases) and its text, the live Snapshot. This
//     package assembles them (report.go), records the run in the results
//     store (report_store.go) and predicts it (report_predict.go).
//
// # Roles and the control plane (Run, ServeWorker)
//
// Run is the submitter and follows the thirteen steps of GRIDHPC Sec. V-B.
// A job spec enters the engine there (or through PlanJob) and is validated
// once, its node selection checked against the inventory; Run then starts
// (or reuses) the workers, plans the job (PlanJob: enough nodes, the split,
// groups of at most 32 by cluster, coordinators of coordinators by 32 above
// more than 32 groups (Levels), each pair's network by Algorithm 1), sends
// the coordinators of the top level their subtrees (each forwards tasks and
// assignments down, in waves, with retries; startup.go), follows the
// telemetry the coordinators aggregate (≤ 10 Hz, changed rows only) and
// gathers the results. ServeWorker is
// the worker process. It has two RMNP endpoints: a control endpoint
// (sub-tasks, telemetry, results, heartbeats, end of run; see protocol.go)
// and a data endpoint that only Solve uses, bound anew for every attempt
// of a run with an RMNP run id of its own (worker.AttemptRunID), so that
// no link or message of an attempt reaches the next. Before
// computing, neighbours connect on the network Algorithm 1 chose, falling
// back to the next candidate when pre-flight fails; the dialer's first
// message names the network it kept, and the accepting worker starts only
// once it has it, so both ends use the same link. A
// worker that dies is seen at once (its links close); one that hangs or is
// cut off misses its heartbeats and is named by a φ-accrual detector that
// learns each peer's pauses, after SuspectAfter and within HeartbeatTimeout
// (heartbeat.go) — or, while it has not completed its start-up or when the
// watcher's host is crowded far beyond a real grid's use, after 30 s of
// silence, counted from the peer's last message that reached the watcher's
// endpoint, taken or not (a receive loop that runs behind does not make
// its peers silent); the run then stops everywhere and is recorded
// as failed. A pre-flight that fails on every network in a way a retry
// may cure (a neighbour still starting) is tried again with backoff within
// a start-up budget (startup.go).
//
// Memory is checked before any task is sent (memory.go): the parts of a
// host's nodes must fit what their hellos say the host has, else the run is
// refused with the figures (jobs.ErrMemory); a worker killed by SIGKILL is
// reported with its part's need and its host's figure. A solution larger
// than the console's memory allows is gathered into a file instead
// (gather.go).
//
// # Sites that cannot see each other (gateways)
//
// When the run's nodes are in two or more sites that name a gateway
// ([[site.gateway]]), Run starts ServeGateway on each gateway host (a deploy
// Boot with role gateway; its plan, the peer gateways and the data addresses
// of its own site's workers, follows on stdin, and after a recovery the
// addresses of its site's new workers: allowWorkers), waits until every pair of
// gateways is linked (directly at the site's address, or through an SSH
// tunnel of the console's when it names none or when its port does not
// answer the dialing gateway's host: checkGatewayPort), and gives every pair of nodes
// of two such sites one more pre-flight candidate after the direct ones: an
// rmnp gateway address (rmnp spec §8). A link that takes it is labelled
// "gateway" in the traffic counters; the report says each pair's route and
// why, and each gateway link's counters. A gateway whose process ends is
// named as the run's loss (PACX-MPI's gateways, seed 001); so is one that
// stops printing its counters (stopped, hung, cut off: gateway_watch.go),
// to which a failure that another node reports meanwhile is charged. A run
// that checkpoints recovers from it on the same workers without that
// gateway: its site's pairs to other sites take their direct routes, else
// an SSH tunnel between the two workers' hosts, opened only for the pairs
// whose direct route the console's check from the dialing host finds
// unreachable, all at once (gateway_lost.go); a worker lost itself under
// the gateway's blame moves as a lost node. One that does not checkpoint
// fails with the gateway's name.
//
// # Surviving a lost node (recovery.go, docs/FAILURES.md)
//
// When the job's checkpoints are on (jobs.Resilience: every 200 iterations
// by default, into checkpoint_dir or, when every host shares the console's
// disk, the data directory) and a node is lost, Run does not stop at the
// failure: it ends the attempt everywhere (the abort names the lost nodes,
// so that coordinators do not wait for them), moves the lost node's part —
// a lost coordinator's whole group, whose workers end with it — to a spare
// (Resilience.Spares, started beside the job's nodes) or to a new worker on
// the lost node's host, and runs the job again with every part restored
// (solve.CheckpointPlan): a synchronous job from the newest iteration every
// rank has, so that it is bit for bit the undisturbed run; an asynchronous
// or hybrid one from each part's newest. The detectors start afresh with
// the parts. The control plane's statuses, failures and results carry
// their attempt, and an earlier attempt's are dropped. The report's Recoveries, the event log and the results store
// say each loss, where its part went, from which iteration, and how long
// until every part iterated again; a loss that is not recovered adds why
// to the failure's cause.
//
// A run that checkpoints to disk is recorded in the data directory
// (resume.go, Manifest): after the console's own loss, RunOptions.Resume
// continues it from its last complete checkpoint on the same nodes
// (gridtui run --resume). Control.Drain (drain.go; gridtui drain through
// the run's socket, the Run view's D) has a node leave a running job: the
// attempt ends as for its loss and its part moves to a spare or a free host.
// Control.Join (join.go; gridtui join) starts a worker on a host of the
// inventory while the job runs and keeps it as a spare.
//
// # Errors and stopped runs
//
// Errors carry the "engine: " prefix once however deep they were wrapped
// ("engine: rank 1: halo from rank 2: rmnp: …"); a failure cause that travels
// as text (a worker's, to the submitter) drops it, since it is printed after
// the node's name. A run whose context ends (Ctrl-C, the console's abort, a
// deadline) returns an error that names the run and wraps ErrRunAborted,
// ErrRunFailed and the context's error; in its report, as in a failed run's,
// the nodes the run stopped read StateAborted with their last iterations.
package engine
