// Package probe discovers this host's network interfaces (Local, with
// /sys/class/net for link type, state and speed, and inventory hints through
// ApplyHints), builds the Htable of a job's nodes — their Ethernet and
// fast-network addresses, Table I of GRIDHPC — and picks the network each
// pair of nodes uses with Algorithm 1 (BestNetwork): same host → Unix socket,
// same cluster → the fastest network both have, different clusters →
// Ethernet, always with a one-line reason a user can read. Locality is the
// paper's third-octet test by default, or a subnet prefix or the inventory's
// cluster label. Preflight dials a pair's candidate routes before a run and
// falls back, with a warning, when the best one does not answer.
//
// The package sits at the bottom of gridtui's dependency graph: Htables are
// built from plain Node values (worker hellos, or the local grid's inventory)
// and never look at the machine they run on.
package probe
