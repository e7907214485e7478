// Package probe discovers this host's network interfaces, builds the Htable of a
// job's nodes (their Ethernet and fast-network addresses, Table I of GRIDHPC),
// decides locality (third octet, prefix or inventory label) and picks the network
// each pair of nodes uses (Algorithm 1 of GRIDHPC), with a reason a user can read.
package probe
