package ui

import (
	"context"
	"fmt"
	"github.com/gridtui/gridtui/ui/common"
	"github.com/gridtui/gridtui/ui/page/network"
	"github.com/gridtui/gridtui/ui/page/results"
	"github.com/gridtui/gridtui/ui/page/run"
	"github.com/gridtui/gridtui/ui/page/sites"
	"log/slog"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/grid"
	"github.com/gridtui/gridtui/predict"
)

// Tabs of the console, in key order.
const (
	TabSites = iota
	TabNetwork
	TabCompose
	TabRun
	TabResults
)

// Config is what the console needs from its command: the inventory (or the
// error reading it), where results are stored, how to run jobs and where to
// log. Nothing is read from the environment here.
type Config struct {
	Ctx          context.Context
	Inventory    *inventory.Inventory
	InventoryErr error
	StoreDir     string
	Run          RunFunc
	Logger       *slog.Logger
	// NoLoad disables sampling the load average (for tests).
	NoLoad bool
	// BSP is the BSP cost model's g and l the last `gridtui bench bsp`
	// kept (predict.LoadBSP), shown in the Network view and used by
	// Compose's prediction of BSP programs; nil for none.
	BSP *predict.BSPParams
}

// confirmation is a yes/no question; yes sends onYes.
type confirmation struct {
	question string
	onYes    tea.Msg
	onNo     tea.Msg // may be nil
}

// Model is the console's root model: it owns the views, routes messages,
// performs side effects through commands and draws the tab bar, the status
// line and the help bar.
type Model struct {
	cfg    Config
	common *Common
	tab    int
	// pages are the tabs, in tab order (common.Page): the root routes a
	// message, draws the body and the help through the one in front.
	pages []common.Page
	// The pages by their type, for the calls the root still makes to
	// them directly (the same values as in pages).
	sites     *SitesView
	network   *network.Model
	compose   *ComposeView
	run       *RunView
	results   *results.Model
	help      help.Model
	showHelp  bool
	confirm   *confirmation
	status    string
	statusBad bool
	// statusTab is the tab the status was said on: a note (not an error)
	// shows there only, so that "stop: 1 host(s) done" does not follow the
	// user to every tab for minutes.
	statusTab int
	feed      *runFeed
	cancelRun context.CancelFunc
	quitting  bool
	// keyPrompts are deployments waiting for the user's word on a host key.
	keyPrompts map[string]hostKeyPromptMsg
	// secret is the passphrase or one-time code being typed for a
	// deployment, if any; secretQueue holds the prompts waiting behind it.
	secret      *secretPrompt
	secretQueue []*secretPrompt
	// preflight holds the last run's pre-flight outcome per pair ("a↔b"),
	// routes what it learnt of its routes through gateways.
	preflight map[string]string
	routes    runRoutes
	// workers are the live run's workers' hosts, told when they change
	// (workersNew: not yet shown); spares are those outside its nodes
	// (runjoin.go).
	workers, spares []string
	workersNew      bool
}

// Messages the root handles itself.
type (
	// quitMsg ends the program after cleanup.
	quitMsg struct{}
	// abortConfirmedMsg cancels the live run.
	abortConfirmedMsg struct{}
	// quitConfirmedMsg aborts the live run and quits once it has stopped.
	quitConfirmedMsg struct{}
)

// New returns the console's root model.
func New(cfg Config) Model {
	if cfg.Ctx == nil {
		cfg.Ctx = context.Background()
	}
	c := NewCommon(cfg.Ctx, 80, 24, cfg.Logger)
	m := Model{
		cfg:        cfg,
		common:     c,
		sites:      ptr(sites.New(c, cfg.Inventory, cfg.InventoryErr)),
		network:    ptr(network.New(c).WithBSP(cfg.BSP)),
		compose:    ptr(NewComposeView(c, cfg.Inventory)),
		run:        ptr(run.New(c)),
		results:    ptr(results.New(c, cfg.StoreDir)),
		help:       help.New(),
		keyPrompts: map[string]hostKeyPromptMsg{},
		preflight:  map[string]string{},
		routes:     newRunRoutes(),
	}
	m.compose.SetBSP(cfg.BSP)
	m.pages = []common.Page{m.sites, m.network, m.compose, m.run, m.results}
	if cfg.Inventory != nil {
		h, err := grid.Htable(cfg.Inventory)
		m.network.SetHtable(h, err)
		m.compose.SetHtable(h)
		m.showPairs()
		m.status = cfg.Inventory.Notice // why ./sites.toml was not used, if it was not
	}
	return m
}

// showPairs hands the composed job's pairs to the Network view, with the
// pre-flight outcome of the last run for the pairs it used, and the route
// it took for those it linked through gateways.
func (m *Model) showPairs() {
	pairs := m.compose.Pairs()
	for i := range pairs {
		key := pairs[i].A + "↔" + pairs[i].B
		pairs[i].Preflight = m.preflight[key]
		if r, ok := m.routes.dialled[key]; ok {
			pairs[i].Route = r
		} else if m.cfg.Inventory != nil && pairs[i].Err == nil {
			pairs[i].Fallback = engine.GatewayFallback(m.cfg.Inventory, pairs[i].A, pairs[i].B)
		}
	}
	m.network.SetPairs(pairs)
}

// Init starts the background samplers.
func (m Model) Init() tea.Cmd {
	var cmds []tea.Cmd
	if !m.cfg.NoLoad {
		cmds = append(cmds, loadTick())
	}
	cmds = append(cmds, m.results.Load(), m.results.Watch())
	return tea.Batch(cmds...)
}

// Tab returns the active tab.
func (m Model) Tab() int { return m.tab }

// Update routes a message to the root's handlers or the active view.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	msg = safeMsg(msg)
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.common.Width, m.common.Height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		return m, nil
	case tea.KeyPressMsg:
		return m.keyPress(msg)
	case tea.MouseClickMsg:
		return m.click(msg)
	case tea.MouseWheelMsg:
		// The wheel scrolls the list in front, as the arrow keys do.
		if m.confirm != nil || m.secret != nil || m.showHelp {
			return m, nil
		}
		switch msg.Mouse().Button {
		case tea.MouseWheelUp:
			return m.routeToView(tea.KeyPressMsg{Code: tea.KeyUp})
		case tea.MouseWheelDown:
			return m.routeToView(tea.KeyPressMsg{Code: tea.KeyDown})
		}
		return m, nil
	}
	if cmd, ok := m.backendMsg(msg); ok {
		return m, cmd
	}
	return m.routeToView(msg)
}

// keyPress handles modal dialogs, global keys, then the view's keys.
func (m Model) keyPress(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.common.Keys
	if m.secret != nil {
		m.secretKey(msg)
		return m, nil
	}
	if m.confirm != nil {
		c := m.confirm
		switch {
		case key.Matches(msg, k.Yes):
			m.confirm = nil
			return m, msgCmd(c.onYes)
		case key.Matches(msg, k.No), key.Matches(msg, k.Interrupt):
			m.confirm = nil
			if c.onNo != nil {
				return m, msgCmd(c.onNo)
			}
		}
		return m, nil
	}
	if m.showHelp {
		m.showHelp = false
		return m, nil
	}
	if key.Matches(msg, k.Interrupt) || (!m.capturing() && key.Matches(msg, k.Quit)) {
		return m.quit()
	}
	if !m.capturing() {
		switch {
		case key.Matches(msg, k.Help):
			m.showHelp = true
			return m, nil
		case key.Matches(msg, k.NextTab):
			m.tab = (m.tab + 1) % len(m.pages)
			return m, nil
		case key.Matches(msg, k.PrevTab):
			m.tab = (m.tab + len(m.pages) - 1) % len(m.pages)
			return m, nil
		}
		for i, b := range []key.Binding{k.Tab1, k.Tab2, k.Tab3, k.Tab4, k.Tab5} {
			if key.Matches(msg, b) && i < len(m.pages) {
				m.tab = i
				return m, nil
			}
		}
	}
	return m.routeToView(msg)
}

// click switches tabs when the tab bar is clicked and hands a click in the
// body to the view in front, whose lists select the row clicked (the mouse
// is optional: every click has its keys).
func (m Model) click(msg tea.MouseClickMsg) (tea.Model, tea.Cmd) {
	mouse := msg.Mouse()
	if m.confirm != nil || m.secret != nil || m.showHelp || mouse.Button != tea.MouseLeft {
		return m, nil
	}
	if mouse.Y >= 1 && mouse.Y <= m.common.BodyHeight() && !m.capturing() {
		body := msg
		body.Y-- // the views' rows count from the top of the body
		return m.routeToView(body)
	}
	if mouse.Y != 0 {
		return m, nil
	}
	x := len("gridtui ")
	for i, p := range m.pages {
		w := len(fmt.Sprintf(" %d %s ", i+1, p.Title()))
		if mouse.X >= x && mouse.X < x+w {
			m.tab = i
			break
		}
		x += w
	}
	return m, nil
}

// capturing reports whether the page in front takes text input, so that
// letters and digits must not switch tabs or quit.
func (m Model) capturing() bool { return m.pages[m.tab].Capturing() }

// routeToView hands a message to the view that owns it.
func (m Model) routeToView(msg tea.Msg) (tea.Model, tea.Cmd) {
	if !input(msg) {
		// A page's reply to its own command, or news for every page (the
		// results store read): each page takes what is its own.
		cmds := make([]tea.Cmd, 0, len(m.pages))
		for _, p := range m.pages {
			_, c := p.Update(msg)
			cmds = append(cmds, c)
		}
		m.showPairs()
		return m, tea.Batch(cmds...)
	}
	_, cmd := m.pages[m.tab].Update(msg)
	if m.pages[m.tab] == common.Page(m.compose) {
		m.showPairs() // the job's pairs, in the Network view
	}
	return m, cmd
}

// input reports the user's input, which goes to the page in front only.
func input(msg tea.Msg) bool {
	switch msg.(type) {
	case tea.KeyPressMsg, tea.KeyReleaseMsg, tea.MouseClickMsg, tea.MouseReleaseMsg, tea.MouseWheelMsg, tea.MouseMotionMsg, tea.PasteMsg:
		return true
	}
	return false
}

// quit asks for confirmation while a run is live, else quits.
func (m Model) quit() (tea.Model, tea.Cmd) {
	if m.run.Running() {
		m.confirm = &confirmation{question: "A run is live. Abort it, stop its workers and quit?", onYes: quitConfirmedMsg{}}
		return m, nil
	}
	m.quitting = true
	return m, tea.Quit
}

// setStatus shows a one-line message under the view.
func (m *Model) setStatus(bad bool, format string, a ...any) {
	m.status, m.statusBad, m.statusTab = fmt.Sprintf(format, a...), bad, m.tab
	if bad {
		m.common.Logger.Warn("console", "status", m.status)
	} else {
		m.common.Logger.Info("console", "status", m.status)
	}
}

// markRunWorkers shows the run's nodes as busy while it runs.
func (m *Model) markRunWorkers(s engine.Snapshot, w WorkerState) {
	names := make([]string, len(s.Nodes))
	for i := range s.Nodes {
		names[i] = s.Nodes[i].Node
	}
	m.sites.SetWorkers(names, w)
}

// View draws the console.
func (m Model) View() tea.View {
	v := tea.NewView(m.render())
	cp, ok := m.pages[m.tab].(common.Cursor)
	if ok && m.confirm == nil && m.secret == nil && !m.showHelp && !m.quitting {
		if c := cp.Cursor(); c != nil {
			c.Position.Y++ // the body starts below the tab bar
			v.Cursor = c
		}
	}
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	if m.paging() {
		// A detail view is open: the terminal selects and copies its
		// text as it would anywhere (the mouse is released to it).
		v.MouseMode = tea.MouseModeNone
	}
	v.WindowTitle = "gridtui"
	return v
}

// render draws the whole screen as text (the content of View).
func (m Model) render() string {
	if m.quitting {
		return ""
	}
	c := m.common
	var body string
	switch {
	case m.showHelp:
		body = m.fullHelp()
	default:
		body = m.viewBody()
	}
	if m.secret != nil {
		body = overlay(body, c.Styles.Modal.Render(m.secret.view(c)), c.Width, c.BodyHeight())
	}
	if m.confirm != nil {
		body = overlay(body, c.Styles.Modal.Render(m.confirm.question+"\n\n"+c.Styles.Key.Render("y")+" yes   "+c.Styles.Key.Render("n")+" no"), c.Width, c.BodyHeight())
	}
	status := oneLine(m.status)
	if !m.statusBad && m.statusTab != m.tab {
		status = "" // a note of another tab
	}
	st := c.Styles.Dim
	if m.statusBad {
		st = c.Styles.Err
	}
	lines := []string{m.tabBar(), body, st.Render(fitLine(status, c.Width)), m.shortHelp()}
	return strings.Join(lines, "\n")
}

// oneLine joins a multi-line message (an error listing failed hosts, say)
// into the single status line, so that it never pushes the help bar off
// the screen.
func oneLine(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	var parts []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " · ")
}

func (m Model) viewBody() string { return m.pages[m.tab].View() }

func (m Model) tabBar() string {
	s := m.common.Styles
	var b strings.Builder
	b.WriteString(s.Brand.Render("gridtui "))
	for i, p := range m.pages {
		label := fmt.Sprintf(" %d %s ", i+1, p.Title())
		if p == common.Page(m.run) && m.run.Running() {
			label = fmt.Sprintf(" %d %s● ", i+1, p.Title())
		}
		if i == m.tab {
			b.WriteString(s.TabActive.Render(label))
		} else {
			b.WriteString(s.TabInactive.Render(label))
		}
	}
	return fitLine(b.String(), m.common.Width)
}

// overlay centres box over body (both plain lines of the body size).
func overlay(body, box string, w, h int) string {
	lines := strings.Split(body, "\n")
	for len(lines) < h {
		lines = append(lines, "")
	}
	bl := strings.Split(box, "\n")
	top := max(0, (h-len(bl))/2)
	for i, l := range bl {
		if top+i >= len(lines) {
			break
		}
		left := max(0, (w-widthOf(l))/2)
		lines[top+i] = fitLine(strings.Repeat(" ", left)+l, w)
	}
	return strings.Join(lines, "\n")
}

// ptr returns a pointer to a copy of v (a page the root holds).
func ptr[T any](v T) *T { return &v }
