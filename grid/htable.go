package grid

import (
	"context"
	"errors"
	"fmt"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/probe"
)

// ErrNoInventory is returned when there is no inventory to build from.
var ErrNoInventory = errors.New("grid: no inventory")

// Htable builds the Htable of the inventory's local-grid nodes (GRIDHPC
// Table I on the loopback range) under the inventory's locality rule. SSH
// hosts are known only once their workers said hello, so they are skipped:
// Probe includes them.
func Htable(inv *inventory.Inventory) (*probe.Htable, error) {
	if inv == nil {
		return nil, ErrNoInventory
	}
	return probe.NewHtable(LocalNodes(inv), inv.Locality)
}

// Probe builds the Htable of every host of the inventory: local-grid nodes
// from their inventory addresses, SSH hosts from the NICs their workers
// report, each started briefly with a throw-away run secret and then
// stopped. SSH hosts must have been deployed. A host whose worker does not
// start is left out: skipped says which and why, while err is for a table
// that cannot be built at all.
func Probe(ctx context.Context, inv *inventory.Inventory) (h *probe.Htable, skipped, err error) {
	if inv == nil {
		return nil, nil, ErrNoInventory
	}
	nodes := LocalNodes(inv)
	var remote []inventory.Host
	for _, h := range inv.Hosts() {
		if !isLocal(h) {
			remote = append(remote, h)
		}
	}
	if len(remote) > 0 {
		got, rerr := probeRemote(ctx, inv, remote)
		nodes = append(nodes, got...)
		skipped = rerr
	}
	h, err = probe.NewHtable(nodes, inv.Locality)
	return h, skipped, err
}

// probeRemote starts workers on SSH hosts, with a throw-away run secret,
// just long enough to read their hellos (NICs and host identity), then
// stops them.
func probeRemote(ctx context.Context, inv *inventory.Inventory, hosts []inventory.Host) ([]probe.Node, error) {
	workers, err := deploy.StartWorkers(ctx, inv, hosts, deploy.BootFor(deploy.NewRunSecret()), deploy.Options{})
	if err != nil {
		return nil, fmt.Errorf("grid: probe %d ssh host(s) (deploy them first): %w", len(hosts), err)
	}
	var nodes []probe.Node
	for _, w := range workers {
		nodes = append(nodes, NodeOf(w.Host, w.Hello))
	}
	for _, w := range workers {
		if serr := w.Stop(ctx); serr != nil {
			err = errors.Join(err, fmt.Errorf("grid: probe: stop worker %s: %w", w.Host.Name, serr))
		}
	}
	return nodes, err
}
