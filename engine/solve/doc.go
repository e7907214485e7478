// Package solve is the iteration of gridtui: one worker's share of a job
// (Solve), the synchronous, asynchronous and hybrid schemes, their
// termination detectors (convergence tokens, activity graph, timed
// sync/async switching) and the per-node telemetry the console displays. It
// imports only rmnp and the applications' programming model; the worker
// process (engine/worker) and libgridhpc_inproc.so (cmd/libgridhpc-inproc)
// both run it.
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
// # Errors
//
// Errors carry the "engine: " prefix once however deep they were wrapped
// ("engine: rank 1: halo from rank 2: rmnp: …"), as they did before the
// engine was split: the prefix names the engine, whichever of its packages
// wrapped them. A part that fails wraps ErrApplication.
package solve
