// Package grid is the grid model shared by the command line, the console and
// the engine: the inventory's hosts as the nodes the Htable sees (NodeOf, one
// function for local-grid nodes and for SSH hosts that said hello), as the
// references a job's node selection resolves against (Refs for the inventory, RefsOf
// for the nodes with a live worker), and the Htable
// of an inventory, from its addresses alone (Htable) or by starting the SSH
// hosts' workers long enough to read their NICs (Probe). It sits between
// deploy (where the hosts come from), probe (what a node and its locality are)
// and jobs (what a job selects), so that each of them stays about one thing.
package grid
