package ui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
)

// This file writes the detail views of the lists' rows (enter on a row):
// everything the row holds, whole, as plain text the pager wraps.

// describe returns the title and the text of a host's detail view: where it
// is, how it is reached, its deployment, its worker and, whole, the reason a
// deployment failed (a changed host key's advice is at its end).
func (v *SitesView) describe(name string) (string, string) {
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
	return "Host " + name, b.String()
}

// findHost returns a host of the inventory and its site.
func (v *SitesView) findHost(name string) (inventory.Host, inventory.Site, bool) {
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

// describeNode is the detail view of a node of the Htable: every address.
func (v *NetworkView) describeNode(node string) (string, string) {
	for _, r := range v.table.Rows() {
		if r.Node != node {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "cluster %s\nethernet: %s\n", r.Cluster, addrList(r.Ethernet))
		if len(r.Fast) == 0 {
			b.WriteString("fast networks: none\n")
		}
		for _, f := range r.Fast {
			fmt.Fprintf(&b, "fast network: %s %s\n", f.Kind, f.Addr)
		}
		return "Node " + node, b.String()
	}
	return "Node " + node, "not in the Htable"
}

// describePair is the detail view of a pair of the job: the network
// Algorithm 1 chose, its addresses, and the reason, whole.
func (v *NetworkView) describePair(key string) (string, string) {
	for _, p := range v.pairs {
		if p.A+"↔"+p.B != key {
			continue
		}
		var b strings.Builder
		switch {
		case p.Err != nil:
			fmt.Fprintf(&b, "network: none\n%s\n", p.Err)
		default:
			fmt.Fprintf(&b, "network: %s\n", p.Route.Network)
			if p.Route.AAddr != "" {
				fmt.Fprintf(&b, "addresses: %s ↔ %s\n", p.Route.AAddr, p.Route.BAddr)
			}
			fmt.Fprintf(&b, "reason: %s\n", p.Route.Reason)
			if p.Fallback != "" {
				fmt.Fprintf(&b, "if its direct path fails pre-flight: %s ([[site.gateway]] of both sites)\n", p.Fallback)
			}
		}
		fmt.Fprintf(&b, "pre-flight: %s\n", orDefault(p.Preflight, "not run"))
		return "Pair " + p.A + " ↔ " + p.B, b.String()
	}
	return "Pair " + key, "not in the job"
}

// describeNode is the detail view of a node of the run: its state, its
// progress, its time and traffic, and its error, whole.
func (v *RunView) describeNode(node string) (string, string) {
	for i := range v.snap.Nodes {
		n := &v.snap.Nodes[i]
		if n.Node != node {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "state: %s %s · rank %d · group %d\n", stateGlyph(n.State), n.State, n.Rank, n.Group)
		fmt.Fprintf(&b, "iterations: %d · local σ %s\n", n.Iteration, sci(n.Sigma))
		fmt.Fprintf(&b, "time: compute %s · send %s · wait %s\n", seconds(n.Compute), seconds(n.Send), seconds(n.Wait))
		if n.PeakRSS > 0 {
			fmt.Fprintf(&b, "peak memory: %s\n", bytesText(n.PeakRSS))
		}
		for _, t := range n.Traffic {
			fmt.Fprintf(&b, "traffic over %s: %s in %s messages", t.Network, bytesText(t.Bytes), countText(t.Messages))
			if t.Skipped > 0 {
				fmt.Fprintf(&b, ", %s skipped", countText(t.Skipped))
			}
			b.WriteByte('\n')
		}
		if n.Err != "" {
			fmt.Fprintf(&b, "\nerror:\n%s\n", n.Err)
		}
		var evs []string
		for _, e := range v.logs {
			if e.Node == node {
				evs = append(evs, v.eventLine(e))
			}
		}
		if len(evs) > 0 {
			fmt.Fprintf(&b, "\nevents:\n%s\n", strings.Join(evs, "\n"))
		}
		return "Node " + node, b.String()
	}
	return "Node " + node, "not in the run"
}

func seconds(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) + " s" }

// eventLine is one event of the log, whole: time since the run started,
// node, text.
func (v *RunView) eventLine(e engine.LogEvent) string {
	at := time.Duration(0)
	if !v.snap.At.IsZero() {
		at = e.At.Sub(v.snap.At.Add(-v.snap.Elapsed))
	}
	return fmt.Sprintf("%s %-8s %s", clock(at.Truncate(100*time.Millisecond)), orDefault(e.Node, "run"), e.Text)
}
