// Package predict estimates a job's time to solution before it runs, as
// dPerf (P2PDC's companion, Cornea et al.) does: it reads the traces that
// earlier runs of the same application left in the results store (compute
// time per sweep and per grid point, traffic per neighbour link, iteration
// counts), scales them to another node count and another platform (per
// network latency and bandwidth, editable for what-if questions), and
// replays the iterations in a small discrete-event simulation.
//
// It knows applications only through those traces: points per node, bytes
// per link per iteration and the neighbour graph, so it serves every
// application written on apps/gridapp. Synchronous runs are replayed
// exactly (each sweep waits for its neighbours' halos of the previous
// one); asynchronous runs need a model of how iteration counts grow with
// the staleness of halos, fitted on the recorded asynchronous runs
// (see StalenessModel).
package predict
