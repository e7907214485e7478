// Package gateway is gridtui's gateway process (ServeGateway), started by
// the submitter (engine.Run) on the gateway host of a site whose nodes the
// other sites cannot reach: it runs an rmnp Gateway (rmnp spec §8), reads
// its plan (GatewayPlan: its peers and the addresses it may relay to) on
// stdin, then updates (GatewayUpdate: more addresses, those of its site's
// workers a recovery started on new ports), and prints the gateway's counters as JSON lines until its stdin
// closes. The submitter's side (starting, linking and watching the
// gateways) is engine's gateway_run.go and gateway_watch.go.
package gateway
