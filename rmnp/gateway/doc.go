// Package gateway is RMNP's gateway relay (rmnp spec.md §8), the second
// protocol beside the links: a Gateway on a site's gateway host accepts the
// gw:// links of its site's workers (rmnp.GatewayAddr; the route request is
// rmnp's, gwroute.go), and carries every such link to the peer site's
// gateway as a channel of one authenticated connection per pair of sites
// (S2 on DATA, CTRL first, one waiting update per asynchronous channel),
// which hands it to the destination worker. rmnp itself is the paper's
// protocol; this package builds on its frames and handshake.
package gateway
