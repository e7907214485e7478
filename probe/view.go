package probe

import (
	"cmp"
	"net/netip"
	"slices"
)

// viewKinds are the NIC kinds a view indexes, in the order of view.span.
var viewKinds = [...]Kind{Infiniband, Myrinet, Ethernet, Loopback, Other}

func kindIndex(k Kind) int {
	for i, x := range viewKinds {
		if x == k {
			return i
		}
	}
	return -1
}

// view is a node reduced to what route choice needs: its identity and, per
// kind, the addresses a route may use. The Htable builds one per node once,
// so routing a pair costs no sorting and no allocation beyond the Route.
type view struct {
	name, host, cluster string
	addrs               []netip.Addr
	span                [len(viewKinds)][2]int32
}

// newView orders a node's usable addresses: NICs that are up, fastest link
// first (unknown speed last, given order kept among equals), and inside each
// NIC IPv4 before IPv6. Link-local, multicast and unspecified addresses are
// left out: they cannot name a peer without a zone.
func newView(n *Node) view {
	v := view{name: n.Name, host: n.Host, cluster: n.Cluster}
	order := make([]int, 0, len(n.NICs))
	total := 0
	for i := range n.NICs {
		if n.NICs[i].Up && kindIndex(n.NICs[i].Kind) >= 0 {
			order = append(order, i)
			total += len(n.NICs[i].Addrs)
		}
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(n.NICs[y].SpeedMbps, n.NICs[x].SpeedMbps) })
	v.addrs = make([]netip.Addr, 0, total)
	for ki, k := range viewKinds {
		v.span[ki][0] = int32(len(v.addrs))
		for _, i := range order {
			if n.NICs[i].Kind != k {
				continue
			}
			for _, v4 := range [2]bool{true, false} {
				for _, a := range n.NICs[i].Addrs {
					if a = a.Unmap(); a.Is4() == v4 && routableAddr(a) {
						v.addrs = append(v.addrs, a)
					}
				}
			}
		}
		v.span[ki][1] = int32(len(v.addrs))
	}
	return v
}

// of returns the usable addresses of kind k, best first.
func (v *view) of(k Kind) []netip.Addr {
	i := kindIndex(k)
	if i < 0 {
		return nil
	}
	return v.addrs[v.span[i][0]:v.span[i][1]]
}

// pickPair returns the first address of each side in a family both have,
// IPv4 before IPv6: the same rule whichever side is a, so routes are
// symmetric.
func pickPair(as, bs []netip.Addr) (netip.Addr, netip.Addr, bool) {
	for _, v4 := range [2]bool{true, false} {
		ia := slices.IndexFunc(as, func(x netip.Addr) bool { return x.Is4() == v4 })
		ib := slices.IndexFunc(bs, func(x netip.Addr) bool { return x.Is4() == v4 })
		if ia >= 0 && ib >= 0 {
			return as[ia], bs[ib], true
		}
	}
	return netip.Addr{}, netip.Addr{}, false
}
