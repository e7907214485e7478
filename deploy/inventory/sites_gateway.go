package inventory

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// DefaultGatewayPort is the port of a gateway whose [[site.gateway]] names
// none.
const DefaultGatewayPort = 7400

// gateways validates a site's [[site.gateway]] tables: each names a host of
// the site, the address other sites dial and the ports they may reach.
func (b *builder) gateways(path string, fs *fileSite, s *Site) ([]Gateway, error) {
	var out []Gateway
	for i, fg := range fs.Gateways {
		gpath := fmt.Sprintf("%s.gateway[%d]", path, i)
		g := Gateway{Host: fg.Host, Address: fg.Address, Ports: fg.Ports}
		if g.Host == "" {
			return nil, b.errAt(gpath, "gateway has no host (the host of site %q it runs on)", s.Name)
		}
		if !siteHas(s, g.Host) {
			return nil, b.errAt(gpath+".host", "gateway host %q is not a host of site %q", g.Host, s.Name)
		}
		if g.Address != "" && !hostOrIP(g.Address) {
			return nil, b.errAt(gpath+".address", "gateway address %q is not an IP address or host name", g.Address)
		}
		if len(g.Ports) == 0 {
			g.Ports = []int{DefaultGatewayPort}
		}
		for k, p := range g.Ports {
			if p < 1 || p > 65535 {
				return nil, b.errAt(gpath+".ports", "ports[%d] = %d is not between 1 and 65535", k, p)
			}
			if slices.Index(g.Ports, p) != k {
				return nil, b.errAt(gpath+".ports", "port %d listed twice", p)
			}
		}
		for _, o := range out {
			if o.Host == g.Host {
				return nil, b.errAt(gpath+".host", "duplicate gateway host %q in site %q", g.Host, s.Name)
			}
		}
		out = append(out, g)
	}
	return out, nil
}

// hostOrIP reports whether a is an IP address or a host name.
func hostOrIP(a string) bool {
	if _, err := netip.ParseAddr(a); err == nil {
		return true
	}
	return strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") == "" && !strings.HasPrefix(a, "-")
}

func siteHas(s *Site, host string) bool {
	for _, c := range s.Clusters {
		for _, h := range c.Hosts {
			if h.Name == host {
				return true
			}
		}
	}
	return false
}

// SiteOf returns the site of the named host, or nil.
func (inv *Inventory) SiteOf(host string) *Site {
	for i := range inv.Sites {
		if siteHas(&inv.Sites[i], host) {
			return &inv.Sites[i]
		}
	}
	return nil
}
