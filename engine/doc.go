// Package engine runs iterative jobs across workers: the roles of GRIDHPC
// (submitter, coordinator, worker), the synchronous, asynchronous and hybrid
// schemes, their termination detectors (convergence tokens, activity graph,
// timed sync/async switching) and the telemetry the console displays.
//
// # Applications
//
// The engine knows applications only through the programming model
// (apps/gridapp): a worker looks its Subtask's application up by name,
// defines the task with it (Define, deterministic: every worker derives the
// same decomposition), builds its own Part (NewPart) and drives it — Sweep,
// Outgoing to each neighbour, Halo from each — under the job's scheme and
// detector, then sends the part's Result up. A part that panics, returns a
// NaN σ, or sends a neighbour more or fewer values than its halo holds fails
// the run with ErrApplication and an error naming the application.
//
// A task of several outer steps (gridapp.Task.Steps: time steps) runs the
// scheme and its detector once per step; between two steps the parts vote
// up the spanning tree rooted at rank 0 that each saw the step converge, the
// decision comes back down, every part advances (gridapp.Stepper) and fences
// each link so that no control message of one step is read in the next
// (runSteps). At the submitter an application may refuse asynchronous links
// (gridapp.SchemeChecker, in the plan) and write its own output files
// (gridapp.Outputter, in the report).
//
// # Schemes and termination (Solve)
//
// The b workers of a job own parts 0…b−1 (obstacle: slabs of the grid, a
// chain); each exchanges halos with its neighbours in the application's graph
// as rmnp DATA and detector messages as rmnp CTRL (GRIDHPC Sec. V-A, VI-B),
// except the synchronous scheme's tokens, which ride in the halos' stamps.
// The detectors run on any connected graph: their messages travel along a
// breadth-first spanning tree every worker derives from the same graph
// (rooted at the last rank for the tokens and the switch's votes, at rank 0
// for the activity graph); on a chain that tree is the paper's chain.
//
// Synchronous: iteration k+1 uses the neighbours' iteration-k halos, so the
// values are bit-for-bit the serial ones. Termination by the tokens of Fig. 6,
// pipelined (ConvergenceTokens): all ranks stop after the same iteration, at
// most H+D iterations after the serial run would have (the tree's height and
// depth; 2(b−1) on a chain). The tokens a rank sends in iteration k travel
// in the stamp of its iteration-k+1 halos (sync_stamp.go), so that an
// iteration is one DATA frame each way per link and nothing else.
//
// Asynchronous and hybrid: each worker iterates on the newest halos it holds
// (hybrid: synchronous links inside a cluster, asynchronous across). A
// worker with a synchronous link sweeps in every round, even when its local
// test holds and it only received "unchanged" markers, so the ranks of a
// cluster iterate in lockstep and end with equal iteration counts.
// Termination by the activity graph of Figs. 7–8, implemented as a
// Dijkstra–Scholten diffusing-computation detector (ActivityGraph) whose
// invariant is: every Active worker and every sent but unacknowledged update
// lies in the tree rooted at rank 0. A worker that takes an update becomes
// Active again even if its local test had passed; it sends every plane that
// moved by ≥ ε before it goes Inactive. So the root, once Inactive with no
// unacknowledged update, knows that no worker computes, no update is in
// flight, and each worker's last sweep passed its local test (σ < ε) on halos
// within ε of its neighbours' final values: termination is never early.
// The iteration limit of a worker with only asynchronous links counts its
// sweeps on new halos, and separately its sweeps in a row on unchanged ones
// (activityRun.exhausted): a small part with slow neighbours sweeps many
// times per update it receives.
//
// The second asynchronous detector is the AIAC chapter's timed switch: runs of
// asynchronous iterations alternate with synchronous sections of two
// iterations whose halos travel as CTRL, and a section's global test ends the
// run (SwitchTimer, SectionVote). It works with every scheme: on synchronous
// links the section start is agreed a few rounds ahead, so that partners
// blocked on each other's halos enter it together. A node whose local test
// holds calls the section without waiting for its timer (at most once per
// few section lengths), so a converged grid does not iterate on until a long
// period ends.
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
// and a data endpoint that only Solve uses, rebound after every run. Before
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
// of its own site's workers, follows on stdin), waits until every pair of
// gateways is linked (directly at the site's address, or through an SSH
// tunnel of the console's when it names none or when its port does not
// answer the dialing gateway's host: checkGatewayPort), and gives every pair of nodes
// of two such sites one more pre-flight candidate after the direct ones: an
// rmnp gateway address (rmnp spec §8). A link that takes it is labelled
// "gateway" in the traffic counters; the report says each pair's route and
// why, and each gateway link's counters. A gateway whose process ends fails
// the run with its name (PACX-MPI's gateways, seed 001); so does one that
// stops printing its counters (stopped, hung, cut off: gateway_watch.go),
// to which a failure that another node reports meanwhile is charged.
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
