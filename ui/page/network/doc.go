// Package network is the console's Network page: the Htable (GRIDHPC
// Table I: each node's Ethernet and fast-network addresses) and, for the
// pairs of the composed job (SetPairs, PairRoute), the network Algorithm 1
// chose and why, with each pair's pre-flight outcome and, for a pair linked
// through the sites' gateways, the gateway route ("via gateway G1 ↔ G2").
// Enter opens a node or a pair whole; p asks the root to probe again
// (common.ProbeRequestMsg).
package network
