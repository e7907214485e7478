package network

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/probe"
	"github.com/gridtui/gridtui/ui/common"
	"github.com/gridtui/gridtui/ui/widget/list"
	"github.com/gridtui/gridtui/ui/widget/pager"
)

// PairRoute is the network chosen for one pair of neighbouring nodes of the
// composed job, with the outcome of its pre-flight check when known.
type PairRoute struct {
	A, B  string
	Route probe.Route
	// Err is set when no network joins the pair (the job cannot start).
	Err error
	// Preflight is the pre-flight result ("ok", a warning, an error) or ""
	// when it has not run.
	Preflight string
	// Fallback says how the pair links if its direct path fails pre-flight
	// ("via gateway G1 ↔ G2", engine.GatewayFallback), "" for no other way.
	Fallback string
}

// ErrNotProbed marks a pair whose nodes are not in the Htable yet.
var ErrNotProbed = errors.New("not probed yet (p in Network): the network is chosen when the run starts")

// Model shows the Htable (GRIDHPC Table I: each node's Ethernet and
// fast-network addresses) and, for the pairs the composed job will use, the
// network Algorithm 1 chose and why.
type Model struct {
	common *Common
	table  *probe.Htable
	err    error
	pairs  []PairRoute
	nodes  list.Model
	routes list.Model
	focus  int // 0: nodes, 1: pairs
	// detail describes a node or a pair, whole (enter on its row).
	page pager.Model
}

// New returns an empty Network page.
func New(c *Common) Model {
	return Model{
		common: c,
		nodes: newList(c, []column{
			{Title: "Node", Width: 12},
			{Title: "Cluster", Width: 8},
			{Title: "Ethernet", Width: 0},
			{Title: "Fast network", Width: 0},
		}),
		routes: newList(c, []column{
			{Title: "Pair", Width: 21},
			{Title: "Network", Width: 12},
			{Title: "Reason", Width: 0},
			{Title: "Pre-flight", Width: 10},
		}),
	}
}

// SetHtable shows a new Htable, or the error that prevented building it.
func (v *Model) SetHtable(h *probe.Htable, err error) {
	v.table, v.err = h, err
	var rows []listRow
	if h != nil {
		for _, r := range h.Rows() {
			fast := make([]string, len(r.Fast))
			for i, f := range r.Fast {
				fast[i] = string(f.Kind) + " " + f.Addr.String()
			}
			fastCell := strings.Join(fast, ", ")
			if fastCell == "" {
				fastCell = "none"
			}
			rows = append(rows, listRow{Key: r.Node, Leaf: true,
				Cells: []string{r.Node, r.Cluster, addrList(r.Ethernet), fastCell}})
		}
	}
	v.nodes.SetRows(rows)
}

// Htable returns the table shown, nil if none.
func (v *Model) Htable() *probe.Htable { return v.table }

func addrList(as []netip.Addr) string {
	if len(as) == 0 {
		return "none"
	}
	s := make([]string, len(as))
	for i, a := range as {
		s[i] = a.String()
	}
	return strings.Join(s, ", ")
}

// SetPairs shows the routes of the composed job's neighbour pairs.
func (v *Model) SetPairs(pairs []PairRoute) {
	v.pairs = pairs
	rows := make([]listRow, len(pairs))
	for i, p := range pairs {
		r := listRow{Key: p.A + "↔" + p.B, Leaf: true}
		pf := p.Preflight
		if pf == "" {
			pf = "not run"
		}
		switch {
		case errors.Is(p.Err, ErrNotProbed):
			r.Cells = []string{p.A + " ↔ " + p.B, "?", p.Err.Error(), pf}
			r.Tone = toneDim
		case p.Err != nil:
			r.Cells = []string{p.A + " ↔ " + p.B, "NONE", p.Err.Error(), pf}
			r.Tone = toneErr
		default:
			if p.Route.Via != "" {
				r.Cells = []string{p.A + " ↔ " + p.B, viaLabel(p.Route), viaCell(p.Route), pf}
				break
			}
			addrs := ""
			if p.Route.AAddr != "" {
				addrs = ": " + p.Route.AAddr + " ↔ " + p.Route.BAddr
			}
			why := reasonTail(p.Route.Reason)
			if p.Fallback != "" {
				why += " (if unreachable: " + p.Fallback + ")"
			}
			r.Cells = []string{p.A + " ↔ " + p.B, netLabel(p.Route.Network), why + addrs, pf}
			if pf == "fallback" || pf == "failed" {
				r.Tone = toneWarn
			}
		}
		rows[i] = r
	}
	v.routes.SetRows(rows)
}

// netLabel marks fast networks (◆) apart from Ethernet (·) so they stand
// out without colour.
func netLabel(k probe.Kind) string {
	if k.Fast() {
		return "◆ " + string(k)
	}
	return "· " + string(k)
}

// reasonTail keeps the "why" of a route reason: it drops the "a ↔ b: "
// prefix (the pair column names the nodes) and the "→ network addresses"
// tail (the other columns show them).
func reasonTail(r string) string {
	if i := strings.Index(r, ": "); i >= 0 {
		r = r[i+2:]
	}
	if i := strings.LastIndex(r, " → "); i >= 0 {
		r = r[:i]
	}
	return r
}

// summary counts the job's pairs per network: the at-a-glance answer to
// "which traffic goes over which network".
func (v *Model) summary() string {
	if len(v.pairs) == 0 {
		return "No job yet: choose nodes in Compose (3) to see its pairs' networks."
	}
	count := map[string]int{}
	var order []string
	bad, unknown := 0, 0
	for _, p := range v.pairs {
		switch {
		case errors.Is(p.Err, ErrNotProbed):
			unknown++
			continue
		case p.Err != nil:
			bad++
			continue
		}
		k := "over " + string(p.Route.Network)
		if p.Route.Via != "" {
			k = "via " + strings.TrimPrefix(viaLabel(p.Route), "⇄ ")
		}
		if count[k] == 0 {
			order = append(order, k)
		}
		count[k]++
	}
	parts := make([]string, 0, len(order)+1)
	for _, k := range order {
		parts = append(parts, fmt.Sprintf("%d %s", count[k], k))
	}
	if bad > 0 {
		parts = append(parts, fmt.Sprintf("%d UNREACHABLE", bad))
	}
	if unknown > 0 {
		parts = append(parts, fmt.Sprintf("%d not probed yet", unknown))
	}
	return fmt.Sprintf("Job pairs (%d): %s", len(v.pairs), strings.Join(parts, ", "))
}

// networkKeyMap is the Network view's key map (help.KeyMap).
type networkKeyMap struct {
	Pane, Probe key.Binding
	list        list.Bindings
	nav         []key.Binding
}

// keyMap returns the bindings of the list in focus.
func (v Model) keyMap() networkKeyMap {
	k := v.common.Keys
	shown := v.shown()
	return networkKeyMap{
		Pane:  enabled(bind("←/→", "nodes/pairs", "left", "right"), shown && (len(v.pairs) > 0 || v.focus == 1)),
		Probe: bind("p", "probe again", "p"),
		list:  v.focused().Bindings().Only(shown),
		nav:   k.NavOnly(shown),
	}
}

// shown reports whether the lists are on screen (an Htable to show).
func (v Model) shown() bool {
	return v.err == nil && v.table != nil && len(v.table.Rows()) > 0
}

// ShortHelp implements help.KeyMap.
func (k networkKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.list.Details, k.Pane, k.Probe, k.list.Filter}
}

// FullHelp implements help.KeyMap.
func (k networkKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Pane, k.Probe}, k.list.Column(), k.nav}
}

// help returns the key map the help shows: the detail view's when open.
func (v Model) help() help.KeyMap {
	if v.page.Open {
		return v.page.Bindings(v.common.Width, v.common.BodyHeight())
	}
	return v.keyMap()
}

// focused is the list in focus.
func (v *Model) focused() *list.Model {
	if v.focus == 1 {
		return &v.routes
	}
	return &v.nodes
}

// update handles the lists' keys and clicks and switching between them.
func (v Model) update(msg tea.Msg) (Model, tea.Cmd) {
	if c, ok := msg.(tea.MouseClickMsg); ok && !v.page.Open {
		switch {
		case v.nodes.Click(c.X, c.Y):
			v.focus = 0
		case len(v.pairs) > 0 && v.routes.Click(c.X, c.Y):
			v.focus = 1
		}
		return v, nil
	}
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return v, nil
	}
	if v.page.Open {
		_, cmd := v.page.Update(km, v.common.Width, v.common.BodyHeight())
		return v, cmd
	}
	if v.shown() && v.focused().Update(km, v.common.BodyHeight()/2) {
		return v, nil
	}
	k := v.keyMap()
	switch {
	case key.Matches(km, k.list.Details):
		r, _ := v.focused().Selected()
		if v.focus == 1 {
			v.page = newPager(v.common, pager.New(v.describePair(r.Key)))
		} else {
			v.page = newPager(v.common, pager.New(v.describeNode(r.Key)))
		}
	case key.Matches(km, k.Pane):
		v.focus = 1 - v.focus
	case key.Matches(km, k.Probe):
		return v, msgCmd(common.ProbeRequestMsg{})
	}
	return v, nil
}

// capturing reports whether a list is taking text (the filter).
func (v Model) capturing() bool { return v.nodes.Filtering() || v.routes.Filtering() }

// View renders the Htable above the job's pairs.
func (v Model) View() string {
	c, s := v.common, v.common.Styles
	if v.err != nil {
		return placeBody(c, s.Err.Render("Cannot build the Htable:")+"\n"+wrap(v.err.Error(), c.Width))
	}
	if v.table == nil || len(v.table.Rows()) == 0 {
		return placeBody(c, s.Title.Render("No nodes probed yet")+"\n"+
			s.Dim.Render("Deploy workers in Sites (1) or press p to probe; local nodes come from the inventory."))
	}
	h := c.BodyHeight()
	if v.page.Open {
		return strings.Join(v.page.Render(c.Width, h), "\n")
	}
	loc := v.table.Locality().Rule
	if loc == "" {
		loc = probe.RuleOctet
	}
	nodesH := max(4, (h-2)/2)
	if len(v.pairs) == 0 {
		nodesH = h - 3
	}
	out := []string{
		fitLine(v.focusTitle(0, "Htable")+s.Dim.Render(fmt.Sprintf(" — %d nodes · locality rule %s", len(v.table.Rows()), loc)), c.Width),
		v.nodes.Render(0, 1, c.Width, nodesH),
		fitLine(v.focusTitle(1, v.summary()), c.Width),
	}
	if len(v.pairs) > 0 {
		out = append(out, v.routes.Render(0, nodesH+2, c.Width, h-nodesH-2))
	}
	return placeBody(c, strings.Join(out, "\n"))
}

func (v Model) focusTitle(pane int, t string) string {
	if v.focus == pane {
		return v.common.Styles.Title.Render("▸ " + t)
	}
	return "  " + t
}

// viaCell is the Reason cell of a route through gateways: its reason
// without the pair, which begins with "via …" (engine's gatewayRoute).
func viaCell(r probe.Route) string {
	reason := strings.TrimPrefix(r.Reason, r.A+" ↔ "+r.B+": ")
	if !strings.HasPrefix(reason, "via ") {
		reason = "via " + r.Via + ": " + reason
	}
	return reason
}

// viaLabel is the Network cell of a route through gateways.
func viaLabel(r probe.Route) string {
	if strings.HasPrefix(r.Via, "SSH tunnel") {
		return "⇄ SSH tunnel"
	}
	return "⇄ gateway"
}

// describeNode is the detail view of a node of the Htable: every address.
func (v *Model) describeNode(node string) (string, string) {
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
func (v *Model) describePair(key string) (string, string) {
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
