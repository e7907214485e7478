// Package predict estimates a job's time to solution before it runs, as
// dPerf (P2PDC's companion, Cornea et al.) does: it reads the traces that
// earlier runs of the same application left in the results store (compute
// time per sweep and per grid point, traffic per neighbour link, iteration
// counts), scales them to another node count and another platform (per
// network latency and bandwidth, editable for what-if questions), and
// replays the iterations in a small discrete-event simulation.
//
// It knows applications only through those traces (points per node, bytes
// per link per iteration) and their neighbour graph on a node count, which
// TopologyOf asks the application's Define for, so it serves every
// application written on apps/gridapp. Synchronous runs are replayed
// exactly (each sweep waits for its neighbours' halos of the previous
// one); asynchronous runs are counted in rounds of their slowest
// asynchronous link, how many being fitted on the recorded asynchronous
// runs (see StalenessModel), each round with the time an update takes to
// cross the grid to that link where nodes share a host's cores (at every
// hop it waits for the other nodes of a core to sweep, and a round too
// short for the cluster to settle, its mean squared distance to the link
// in those waits, waits out the rest), and last at least
// the CPU their sweeps and messages need on those cores. A hybrid run's ranks
// sweep in lockstep with their cluster: each does the synchronous count
// and an excess that shrinks with the cluster's size, and the run lasts at
// least those iterations, each timed from the traced hybrid runs' cluster
// that iterated fastest (the other may be paced by the link between the
// clusters, which the rounds already count). A hybrid run's rounds follow
// the sweeps a cluster does in lockstep per round, L: the geometric mean
// of the power law L^−α through the synchronous limit (one sweep a round,
// K rounds) and the floor 1/L + f∞, each fitted on the traced hybrid runs
// (see hybridRounds), a lockstep iteration slowing on shared cores by the
// turns of the other nodes of a core (see hybridFactor); where the traces
// give no exponent, the line in log₂ of the node count.
//
// PredictSchemes answers "every scheme of this job on this platform" with
// the traces it rests on and a Verdict: the scheme predicted fastest, or
// those within CloseCall (5 %) of it, which the prediction does not tell
// apart; Validate predicts a results store's larger runs
// from its smaller ones and compares (a ranking is right when it orders
// every pair of schemes as the measured times do, ties included, and the
// validation says which rankings the measured runs decide at all: those
// where no two schemes' runs overlap, and which the prediction calls: no
// two schemes within CloseCall; it also counts the pairs of schemes
// ordered as measured, since which of two schemes to run is what a user
// asks); SimGridScript and CheckSimGrid replay
// the same traces in SimGrid (python3-simgrid), the simulator dPerf used,
// to cross-check the built-in replay.
package predict
