// Package bsp is the Bulk Synchronous Parallel model of BSPlib (Hill,
// McColl et al., "BSPlib: the BSP programming library", 1998), as InteGrade
// offers it: a program is a sequence of supersteps; in each a process
// computes on its own memory, puts into and gets from the registered
// memory of the others (DRMA) and sends them tagged messages (BSMP); all of
// it takes effect at the superstep's barrier, Sync.
//
// Exchange is one superstep's communication for one process, over a
// Transport (reliable and in order per pair: RMNP synchronous links on the
// network Algorithm 1 chose for each pair, or in-memory channels in
// tests): a total exchange of one message per pair, which is also the
// barrier, then the replies to gets. It checks the standard's collective
// rules (equal registrations, tag sizes, every process in bsp_sync or every
// one in bsp_end) and names the process that broke one (RuleError).
// Machine is the model for Go programs on top of it; apps/bsp drives a C
// program's BSPlib (bsp.h) with the same Exchange.
package bsp
