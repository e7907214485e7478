package sites

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/probe"
	"github.com/gridtui/gridtui/ui/common"
	"github.com/gridtui/gridtui/ui/widget/chart"
	"github.com/gridtui/gridtui/ui/widget/list"
	"github.com/gridtui/gridtui/ui/widget/pager"
)

// WorkerState is a host's worker process as the Sites view shows it.
type WorkerState uint8

// Worker states: no worker, a worker waiting for work, a worker in a run,
// a spare of the live run (a worker of the job outside its plan: the next
// loss or drain moves a part there).
const (
	WorkerDown WorkerState = iota
	WorkerUp
	WorkerBusy
	WorkerSpare
)

// String returns the state's name.
func (w WorkerState) String() string {
	switch w {
	case WorkerUp:
		return "up"
	case WorkerBusy:
		return "busy"
	case WorkerSpare:
		return "spare"
	}
	return "down"
}

// HostState is what the console knows about one host beyond the inventory:
// its deployment progress, its worker and its load.
type HostState struct {
	// Phase is the last deployment phase ("connect", "upload", "ready",
	// "failed", …); empty before any deployment.
	Phase    string
	Progress float64 // 0..1 during "upload"
	Detail   string
	Err      string
	Worker   WorkerState
	// Load is the 1-minute load average; negative when unknown.
	Load float64
	// Fingerprint is the SHA256 fingerprint of an unknown host key waiting
	// for the user's decision; empty otherwise.
	Fingerprint string
	// Joining is set while the host is asked to join the live run as a
	// spare (J); JoinErr is why the last such request was refused.
	Joining bool
	JoinErr string
}

// Model is the tree of sites → clusters → hosts with their deployment
// and worker states. It is a plain struct rendered from the inventory and a
// map of host states.
type Model struct {
	common  *Common
	inv     *inventory.Inventory
	loadErr error
	states  map[string]HostState
	list    list.Model
	// collapsed holds the site and cluster rows folded by the user.
	collapsed map[string]bool
	// detail describes a host, whole (enter on its row).
	page pager.Model
	// live is set while a run runs: J joins a free host to it.
	live bool
}

// Action requests the Sites view sends to the root model, which performs
// them as commands.
type (
	// DeployRequestMsg asks to deploy (upload and start workers on) hosts.
	DeployRequestMsg struct{ Hosts []inventory.Host }
	// StopRequestMsg asks to stop the workers of hosts.
	StopRequestMsg struct{ Hosts []inventory.Host }
	// ProbeRequestMsg asks to probe the hosts' networks again
	// (common.ProbeRequestMsg: the Network page sends it too).
	ProbeRequestMsg = common.ProbeRequestMsg
	// AcceptKeyMsg records the user's acceptance of an unknown host key.
	AcceptKeyMsg struct {
		Host        inventory.Host
		Fingerprint string
	}
	// JoinRequestMsg asks to join Host to the live run as a spare (J on a
	// host that holds no part of it).
	JoinRequestMsg struct{ Host string }
)

// New returns the Sites view of an inventory; loadErr, if not nil,
// is shown instead (the inventory could not be read).
func New(c *Common, inv *inventory.Inventory, loadErr error) Model {
	v := Model{
		common:    c,
		inv:       inv,
		loadErr:   loadErr,
		states:    map[string]HostState{},
		collapsed: map[string]bool{},
		list: newList(c, []column{
			{Title: "Name", Width: 0},
			{Title: "Cores", Width: 5, Right: true},
			{Title: "Launch", Width: 6},
			{Title: "Deploy", Width: 16},
			{Title: "Worker", Width: 6},
			{Title: "Load", Width: 5, Right: true},
		}),
	}
	v.rebuild()
	return v
}

// SetHostState replaces what the view shows for one host.
func (v *Model) SetHostState(host string, st HostState) {
	v.states[host] = st
	v.rebuild()
}

// SetHostStates changes the states of many hosts and redraws the list once
// (a 1024-node run updates them all).
func (v *Model) SetHostStates(states map[string]HostState) {
	for h, st := range states {
		v.states[h] = st
	}
	v.rebuild()
}

// HostState returns the state shown for a host (Load −1 when unknown).
func (v *Model) HostState(host string) HostState {
	if st, ok := v.states[host]; ok {
		return st
	}
	return HostState{Load: -1}
}

// SetLive tells the view whether a run runs (J joins a host to it).
func (v *Model) SetLive(on bool) { v.live = on }

// SetWorkers marks the workers of the named hosts with a state.
func (v *Model) SetWorkers(hosts []string, w WorkerState) {
	for _, h := range hosts {
		st := v.HostState(h)
		st.Worker = w
		v.states[h] = st
	}
	v.rebuild()
}

func (v *Model) rebuild() {
	if v.inv == nil {
		v.list.SetRows(nil)
		return
	}
	var rows []listRow
	for _, s := range v.inv.Sites {
		n := 0
		for _, c := range s.Clusters {
			n += len(c.Hosts)
		}
		key := "site/" + s.Name
		rows = append(rows, listRow{Key: key, Level: 0,
			Cells: []string{v.fold(key) + s.Name + siteNote(s, n), "", string(s.Launcher)}})
		if v.collapsed[key] {
			continue
		}
		for _, c := range s.Clusters {
			ckey := "cluster/" + s.Name + "/" + c.Name
			rows = append(rows, listRow{Key: ckey, Level: 1,
				Cells: []string{v.fold(ckey) + c.Name + " (" + count(len(c.Hosts), "host", "hosts") + ")", strconv.Itoa(c.Cores)}})
			if v.collapsed[ckey] {
				continue
			}
			for _, h := range c.Hosts {
				rows = append(rows, v.hostRow(s, h))
			}
		}
	}
	v.list.SetRows(rows)
}

// fold is the tree marker of a site or cluster row.
func (v *Model) fold(key string) string {
	if v.collapsed[key] {
		return "▸ "
	}
	return "▾ "
}

func siteNote(s inventory.Site, hosts int) string {
	note := " (" + count(len(s.Clusters), "cluster", "clusters") + ", " + count(hosts, "host", "hosts")
	if s.Frontend != "" {
		note += ", via " + s.Frontend
	}
	return note + ")"
}

func (v *Model) hostRow(s inventory.Site, h inventory.Host) listRow {
	st := v.HostState(h.Name)
	r := listRow{Key: "host/" + h.Name, Level: 2, Leaf: true,
		Cells: []string{h.Name, strconv.Itoa(h.Cores), string(s.Launcher), deployCell(st), workerCell(st), loadCell(st.Load)}}
	switch {
	case st.Phase == "failed" || st.Fingerprint != "":
		r.Tone = toneErr
	case st.Worker == WorkerDown:
		r.Tone = toneDim
	case st.Worker == WorkerBusy:
		r.Tone = toneOK
	}
	return r
}

// workerCell renders a host's worker: "join…" while it joins the run.
func workerCell(st HostState) string {
	if st.Joining {
		return "join…"
	}
	return st.Worker.String()
}

// joinable returns the host under the cursor a J would join to the live
// run: one host, with no part of the run, not a spare, not joining.
func (v Model) joinable() (string, bool) {
	r, ok := v.list.Selected()
	if !ok || !v.live || !r.Leaf || !strings.HasPrefix(r.Key, "host/") {
		return "", false
	}
	name := strings.TrimPrefix(r.Key, "host/")
	st := v.HostState(name)
	return name, !st.Joining && st.Worker != WorkerBusy && st.Worker != WorkerSpare
}

// deployCell renders a host's deployment phase: a bar while uploading.
func deployCell(st HostState) string {
	switch {
	case st.Fingerprint != "":
		return "unknown key!"
	case st.Phase == "":
		return "–"
	case st.Phase == "upload":
		return progressBar(st.Progress, 10) + fmt.Sprintf(" %3.0f%%", st.Progress*100)
	case st.Phase == "failed":
		return "failed"
	}
	return st.Phase
}

// progressBar draws a fraction as a bar of w cells (chart.Bar).
func progressBar(f float64, w int) string { return chart.Bar(f, w) }

// selectedHosts returns the hosts under the cursor: one host, or every host
// of the selected cluster or site.
func (v *Model) selectedHosts() []inventory.Host {
	r, ok := v.list.Selected()
	if !ok || v.inv == nil {
		return nil
	}
	var out []inventory.Host
	for _, s := range v.inv.Sites {
		for _, c := range s.Clusters {
			for _, h := range c.Hosts {
				switch r.Key {
				case "host/" + h.Name, "cluster/" + s.Name + "/" + c.Name, "site/" + s.Name:
					out = append(out, h)
				}
			}
		}
	}
	return out
}

// sitesKeyMap is the Sites view's key map (help.KeyMap): its own keys, the
// list's and the moves; a detail view open in front has its own.
type sitesKeyMap struct {
	Deploy, DeployAll, Stop, Probe, Accept, Join, Fold key.Binding
	list                                               list.Bindings
	nav                                                []key.Binding
}

// keyMap returns the bindings enabled for what is under the cursor.
func (v Model) keyMap() sitesKeyMap {
	r, sel := v.list.Selected()
	hosts := len(v.selectedHosts()) > 0
	pending := false
	for _, h := range v.selectedHosts() {
		pending = pending || v.HostState(h.Name).Fingerprint != ""
	}
	k := v.common.Keys
	shown := v.shown()
	lk := v.list.Bindings().Only(shown)
	// enter folds a site or a cluster and describes a host.
	lk.Details = enabled(lk.Details, sel && r.Leaf)
	_, joinable := v.joinable()
	return sitesKeyMap{
		Deploy:    enabled(bind("d", "deploy selected", "d"), hosts),
		DeployAll: enabled(bind("D", "deploy all", "D"), shown),
		Stop:      enabled(bind("x", "stop workers", "x"), hosts),
		Probe:     enabled(bind("p", "probe", "p"), shown),
		Accept:    enabled(bind("a", "accept host key", "a"), pending),
		Join:      enabled(bind("J", "join run as spare", "J"), joinable),
		Fold:      enabled(bind("space", "fold/unfold", "space", "enter"), sel && !r.Leaf),
		list:      lk,
		nav:       k.NavOnly(shown),
	}
}

// shown reports whether the list is on screen (an inventory with hosts).
func (v Model) shown() bool {
	return v.loadErr == nil && v.inv != nil && len(v.inv.Hosts()) > 0
}

// ShortHelp implements help.KeyMap.
func (k sitesKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.list.Details, k.Join, k.Deploy, k.DeployAll, k.Stop, k.Probe, k.list.Filter}
}

// FullHelp implements help.KeyMap.
func (k sitesKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Deploy, k.DeployAll, k.Stop, k.Join, k.Probe, k.Accept, k.Fold}, k.list.Column(), k.nav}
}

// help returns the key map the help shows: the detail view's when open.
func (v Model) help() help.KeyMap {
	if v.page.Open {
		return v.page.Bindings(v.common.Width, v.common.BodyHeight())
	}
	return v.keyMap()
}

// update handles the Sites view's keys and clicks; actions become request
// messages.
func (v Model) update(msg tea.Msg) (Model, tea.Cmd) {
	if c, ok := msg.(tea.MouseClickMsg); ok {
		if !v.page.Open {
			v.list.Click(c.X, c.Y)
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
	k := v.keyMap()
	if v.shown() && v.list.Update(km, v.common.BodyHeight()-1) {
		return v, nil
	}
	switch {
	case key.Matches(km, k.Fold):
		r, _ := v.list.Selected()
		v.collapsed[r.Key] = !v.collapsed[r.Key]
		v.rebuild()
	case key.Matches(km, k.list.Details):
		r, _ := v.list.Selected()
		v.page = newPager(v.common, pager.New(v.describe(strings.TrimPrefix(r.Key, "host/"))))
	case key.Matches(km, k.Deploy):
		return v, msgCmd(DeployRequestMsg{Hosts: v.selectedHosts()})
	case key.Matches(km, k.DeployAll):
		return v, msgCmd(DeployRequestMsg{Hosts: v.inv.Hosts()})
	case key.Matches(km, k.Stop):
		return v, msgCmd(StopRequestMsg{Hosts: v.selectedHosts()})
	case key.Matches(km, k.Join):
		if h, ok := v.joinable(); ok {
			return v, msgCmd(JoinRequestMsg{Host: h})
		}
	case key.Matches(km, k.Probe):
		return v, msgCmd(ProbeRequestMsg{})
	case key.Matches(km, k.Accept):
		for _, h := range v.selectedHosts() {
			if fp := v.HostState(h.Name).Fingerprint; fp != "" {
				return v, msgCmd(AcceptKeyMsg{Host: h, Fingerprint: fp})
			}
		}
	}
	return v, nil
}

// msgCmd returns a command that yields msg.

// View renders the Sites view in the body area.
func (v Model) View() string {
	c, s := v.common, v.common.Styles
	h := c.BodyHeight()
	switch {
	case v.loadErr != nil:
		return placeBody(c, s.Err.Render("Cannot read the inventory:")+"\n"+wrap(v.loadErr.Error(), c.Width)+
			"\n\n"+s.Dim.Render("Fix the file (or pass --sites) and restart gridtui."))
	case v.inv == nil || len(v.inv.Hosts()) == 0:
		src := "no inventory"
		if v.inv != nil {
			src = v.inv.Source
		}
		return placeBody(c, s.Title.Render("No hosts")+"\n"+s.Dim.Render("The inventory ("+src+") lists no hosts. Add sites to sites.toml."))
	}
	if v.page.Open {
		return strings.Join(v.page.Render(c.Width, h), "\n")
	}
	n := len(v.inv.Hosts())
	title := s.Title.Render("Sites") + s.Dim.Render(fmt.Sprintf(" — %s · %s · %s · locality %s",
		v.inv.Source, count(len(v.inv.Sites), "site", "sites"), count(n, "host", "hosts"), localityName(v.inv)))
	body := fitLine(title, c.Width) + "\n" + v.list.Render(0, 1, c.Width, h-1-v.detailLines())
	if d := v.detail(); d != "" {
		body += "\n" + d
	}
	return body
}

func localityName(inv *inventory.Inventory) string {
	if inv.Locality.Rule == "" {
		return probe.RuleOctet
	}
	return inv.Locality.Rule
}

// detailLines is the height of the detail line under the list.
func (v Model) detailLines() int {
	if v.detail() == "" {
		return 0
	}
	return 1
}

// detail describes the selected host's error or pending host key.
func (v Model) detail() string {
	r, ok := v.list.Selected()
	if !ok || !strings.HasPrefix(r.Key, "host/") {
		return ""
	}
	name := strings.TrimPrefix(r.Key, "host/")
	st := v.HostState(name)
	s := v.common.Styles
	switch {
	case st.Fingerprint != "":
		return fitLine(s.Warn.Render("unknown host key of "+name+": "+st.Fingerprint+" — a: accept"), v.common.Width)
	case st.Joining:
		return fitLine(s.Warn.Render(name+": joining the live run as a spare… (its worker starts, up to a minute)"), v.common.Width)
	case st.JoinErr != "":
		return fitLine(s.Err.Render(name+": "+st.JoinErr), v.common.Width)
	case st.Worker == WorkerSpare && v.live:
		return fitLine(s.Dim.Render(name+": a spare of the live run: the next loss or drain moves a part here"), v.common.Width)
	case st.Err != "":
		return fitLine(s.Err.Render(name+": "+st.Err), v.common.Width)
	case st.Detail != "":
		return fitLine(s.Dim.Render(name+": "+st.Detail), v.common.Width)
	}
	return ""
}

// loadCell writes a load average in the Load column's 5 cells: two
// decimals below 10, one below 100, none above ("630", not "630.…": a
// shared host's load runs into the hundreds), "–" when unknown.
func loadCell(load float64) string {
	switch {
	case load < 0:
		return "–"
	case load < 9.995:
		return strconv.FormatFloat(load, 'f', 2, 64)
	case load < 99.95:
		return strconv.FormatFloat(load, 'f', 1, 64)
	case load < 99999.5:
		return strconv.FormatFloat(load, 'f', 0, 64)
	}
	return "≫1e5"
}
