package sites

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// This file writes the detail views of the lists' rows (enter on a row):
// everything the row holds, whole, as plain text the pager wraps.

// describe returns the title and the text of a host's detail view: where it
// is, how it is reached, its deployment, its worker and, whole, the reason a
// deployment failed (a changed host key's advice is at its end).
func (v *Model) describe(name string) (string, string) {
	h, site, ok := v.findHost(name)
	if !ok {
		return "Host " + name, "not in the inventory"
	}
	st := v.HostState(name)
	var b strings.Builder
	fmt.Fprintf(&b, "site %s · cluster %s · %s · launcher %s\n", h.Site, h.Cluster, count(h.Cores, "core", "cores"), site.Launcher)
	if site.Launcher == inventory.LauncherLocal {
		fmt.Fprintf(&b, "addresses: ethernet %s · fast network %s\n", addrOrNone(h.EthernetAddr.String(), h.EthernetAddr.IsValid()), addrOrNone(h.FastAddr.String(), h.FastAddr.IsValid()))
	} else {
		login := h.Name
		if h.User != "" {
			login = h.User + "@" + login
		}
		if h.Port != 0 {
			login += ":" + strconv.Itoa(h.Port)
		}
		fmt.Fprintf(&b, "ssh: %s", login)
		if h.ProxyJump != "" {
			fmt.Fprintf(&b, " via %s", h.ProxyJump)
		}
		b.WriteByte('\n')
		if len(h.IdentityFiles) > 0 {
			fmt.Fprintf(&b, "identity files: %s\n", strings.Join(h.IdentityFiles, ", "))
		}
		if h.Workdir != "" {
			fmt.Fprintf(&b, "work directory: %s\n", h.Workdir)
		}
	}
	if h.Ethernet != "" || h.Fast != "" {
		fmt.Fprintf(&b, "interfaces: ethernet %s · fast network %s\n", orDefault(h.Ethernet, "any"), orDefault(h.Fast, "none"))
	}
	deployLine := "deploy: " + orDefault(st.Phase, "not deployed")
	if st.Phase == "upload" {
		deployLine += fmt.Sprintf(" %.0f%%", st.Progress*100)
	}
	if st.Detail != "" {
		deployLine += " — " + st.Detail
	}
	b.WriteString(deployLine + "\n")
	load := "unknown"
	if st.Load >= 0 {
		load = strconv.FormatFloat(st.Load, 'f', 2, 64)
	}
	fmt.Fprintf(&b, "worker: %s · load %s\n", st.Worker, load)
	if st.Fingerprint != "" {
		fmt.Fprintf(&b, "\nunknown host key: %s\npress a in the list to accept it (it is then recorded in known_hosts)\n", st.Fingerprint)
	}
	if st.Err != "" {
		fmt.Fprintf(&b, "\nfailed:\n%s\n", st.Err)
	}
	if st.JoinErr != "" {
		fmt.Fprintf(&b, "\ndid not join the live run:\n%s\n", st.JoinErr)
	}
	return "Host " + name, b.String()
}

// findHost returns a host of the inventory and its site.
func (v *Model) findHost(name string) (inventory.Host, inventory.Site, bool) {
	if v.inv == nil {
		return inventory.Host{}, inventory.Site{}, false
	}
	for _, s := range v.inv.Sites {
		for _, c := range s.Clusters {
			for _, h := range c.Hosts {
				if h.Name == name {
					return h, s, true
				}
			}
		}
	}
	return inventory.Host{}, inventory.Site{}, false
}

func addrOrNone(a string, ok bool) string {
	if !ok {
		return "none"
	}
	return a
}
