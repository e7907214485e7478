package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/internal/columns"
	"github.com/gridtui/gridtui/jobs"
)

// Results view modes.
const (
	modeRuns = iota
	modeTimes
	modeGains
	modeDetail
)

// ResultsView lists past runs from the results store, shows the paper's
// Table III (times) and Table IV (gains) by cores × grid × scheme for the
// selected run's problem, exports them, and opens a run for its details.
type ResultsView struct {
	common *Common
	store  string // the store setting: "" = jobs.DataDir's default
	res    *jobs.Results
	err    error
	loaded bool
	mode   int
	list   list
	// scroll is the first line shown of a run's details or a table.
	scroll  int
	shift   int // and how far it is scrolled sideways
	message string
	// reloading is set by R until the store is read again, which then
	// says so (a reload that changed nothing looked like no reload).
	reloading bool
}

// Messages of the Results view.
type (
	resultsLoadedMsg struct {
		res *jobs.Results
		err error
	}
	exportDoneMsg struct {
		path string
		err  error
	}
)

// NewResultsView returns the Results view of the store at setting ("" =
// the default data directory), empty until the store is read.
func NewResultsView(c *Common, setting string) ResultsView {
	return ResultsView{common: c, store: setting, list: newList([]column{
		{Title: "When (UTC)", Width: 11},
		{Title: "Name", Width: 0},
		{Title: "Scheme", Width: 6},
		{Title: "Nodes", Width: 5, Right: true},
		{Title: "Cores", Width: 5, Right: true},
		{Title: "n", Width: 4, Right: true},
		{Title: "Wall s", Width: 7, Right: true},
		{Title: "Residual", Width: 8, Right: true},
		{Title: "Outcome", Width: 7},
	})}
}

// load reads the results store (jobs.Load) in a command.
func (v ResultsView) load() tea.Cmd {
	setting := v.store
	return func() tea.Msg {
		dir, err := jobs.DataDir(setting)
		if err != nil {
			return resultsLoadedMsg{err: err}
		}
		res, err := jobs.Load(dir)
		return resultsLoadedMsg{res: res, err: err}
	}
}

// SetResults shows the content of a results store (or why it is unreadable).
func (v *ResultsView) SetResults(res *jobs.Results, err error) {
	v.res, v.err, v.loaded = res, err, true
	var rows []listRow
	if res != nil {
		for i := len(res.Records) - 1; i >= 0; i-- { // newest first
			r := res.Records[i]
			resid, n := "–", "–" // n: an application that declares none records 0
			if r.TrueResidual != nil {
				resid = sci(float64(*r.TrueResidual))
			}
			if r.Job.N > 0 {
				n = strconv.Itoa(r.Job.N)
			}
			row := listRow{Key: r.ID, Leaf: true, Cells: []string{
				r.Time.UTC().Format("01-02 15:04"), orDefault(r.Job.Name, r.ID), string(r.Job.Scheme),
				strconv.Itoa(r.Job.Nodes), strconv.Itoa(r.Job.Cores), n,
				strconv.FormatFloat(r.WallSeconds, 'f', 2, 64), resid, r.Outcome,
			}}
			if !r.OK() {
				row.Tone = toneErr
			}
			rows = append(rows, row)
		}
	}
	v.list.setRows(rows)
}

// selectedRecord returns the run under the cursor.
func (v *ResultsView) selectedRecord() (jobs.RunRecord, bool) {
	r, ok := v.list.selected()
	if !ok || v.res == nil {
		return jobs.RunRecord{}, false
	}
	i := slices.IndexFunc(v.res.Records, func(x jobs.RunRecord) bool { return x.ID == r.Key })
	if i < 0 {
		return jobs.RunRecord{}, false
	}
	return v.res.Records[i], true
}

// table builds Table III or IV for the selected run's problem instance
// (its application and parameters).
func (v *ResultsView) table(kind jobs.TableKind) (jobs.Table, bool) {
	rec, ok := v.selectedRecord()
	if !ok {
		return jobs.Table{}, false
	}
	return jobs.BuildTableOf(kind, v.res.Records, rec.Job.Instance()), true
}

// resultsKeyMap is the Results view's key map (help.KeyMap): the runs'
// list's keys, or the page's (a run's details, a table) in front of it.
type resultsKeyMap struct {
	Tables, CSV, Markdown, Reload key.Binding
	list                          listKeyMap
	page                          pagerKeyMap
	nav                           []key.Binding
	paged                         bool
}

// keyMap returns the bindings of the current mode.
func (v ResultsView) keyMap() resultsKeyMap {
	k := v.common.Keys
	_, sel := v.selectedRecord()
	rk := resultsKeyMap{
		Tables:   enabled(bind("t", "Table III/IV", "t"), sel),
		CSV:      enabled(bind("c", "export CSV", "c"), sel),
		Markdown: enabled(bind("m", "export Markdown", "m"), sel),
		Reload:   bind("R", "reload", "R"),
		nav:      k.navKeys(),
	}
	if v.mode == modeRuns {
		shown := v.shown()
		rk.list = v.list.keyMap(k).only(shown)
		rk.nav = k.navOnly(shown)
		rk.Reload = enabled(rk.Reload, v.loaded)
		rk.list.Details.SetHelp("enter", "open run")
		return rk
	}
	p := v.page()
	rk.page, rk.paged = p.keyMap(k, v.common.Width, v.pageHeight()), true
	return rk
}

// ShortHelp implements help.KeyMap.
func (k resultsKeyMap) ShortHelp() []key.Binding {
	if k.paged {
		return []key.Binding{k.page.Close, k.Tables, k.CSV, k.Markdown, k.page.Copy}
	}
	return []key.Binding{k.list.Details, k.Tables, k.CSV, k.Markdown, k.list.Filter}
}

// FullHelp implements help.KeyMap.
func (k resultsKeyMap) FullHelp() [][]key.Binding {
	own := []key.Binding{k.Tables, k.Reload, k.CSV, k.Markdown}
	if k.paged {
		return append([][]key.Binding{own}, k.page.FullHelp()...)
	}
	return [][]key.Binding{own, k.list.column(), k.nav}
}

func (v ResultsView) help() help.KeyMap { return v.keyMap() }

// pageHeight is the height of a page (a run's details, a table): the body
// less the view's title and message lines.
func (v ResultsView) pageHeight() int { return v.common.bodyHeight() - 2 }

// page is what the view shows instead of the runs: the selected run's
// details (wrapped) or a table (cut, so that its columns stay aligned).
func (v ResultsView) page() pager {
	var p pager
	switch v.mode {
	case modeDetail:
		rec, _ := v.selectedRecord()
		title, rest, _ := strings.Cut(recordDetail(rec), "\n")
		p = newPager(title, rest)
	case modeTimes, modeGains:
		kind := jobs.TimeTable
		if v.mode == modeGains {
			kind = jobs.GainTable
		}
		t, _ := v.table(kind)
		lines := strings.Split(strings.TrimRight(t.Text(), "\n"), "\n")
		if kind == jobs.GainTable {
			lines = append(lines, gainChart(t, v.common.Width, v.pageHeight()-2-len(lines))...)
		}
		p = newPager(lines[0], strings.Join(lines[1:], "\n"))
		p.noWrap = true
	}
	p.scroll, p.shift = v.scroll, v.shift
	return p
}

func (v ResultsView) capturing() bool { return v.list.filtering }

// shown reports whether the runs are on screen (a store read, with runs).
func (v ResultsView) shown() bool {
	return v.err == nil && v.loaded && v.res != nil && len(v.res.Records) > 0
}

// Update handles the view's keys and the store's messages.
func (v ResultsView) Update(msg tea.Msg) (ResultsView, tea.Cmd) {
	switch msg := msg.(type) {
	case resultsLoadedMsg:
		v.SetResults(msg.res, msg.err)
		if v.reloading && msg.err == nil && msg.res != nil {
			v.message = "read again: " + count(len(msg.res.Records), "run", "runs")
		}
		v.reloading = false
	case exportDoneMsg:
		v.message = "exported " + msg.path
		if msg.err != nil {
			v.message = "export failed: " + msg.err.Error()
		}
	case tea.MouseClickMsg:
		if v.mode == modeRuns {
			v.list.click(msg.X, msg.Y)
		}
	case tea.KeyPressMsg:
		return v.key(msg)
	}
	return v, nil
}

func (v ResultsView) key(msg tea.KeyPressMsg) (ResultsView, tea.Cmd) {
	if v.mode == modeRuns && v.shown() && v.list.update(msg, v.common.Keys, v.common.bodyHeight()-2) {
		return v, nil
	}
	k := v.keyMap()
	if k.paged {
		p := v.page()
		if ok, cmd := p.update(msg, v.common.Keys, v.common.Width, v.pageHeight()); ok {
			v.scroll, v.shift = p.scroll, p.shift
			if !p.open {
				v.mode = modeRuns
			}
			return v, cmd
		}
	}
	switch {
	case key.Matches(msg, k.list.Details):
		v.mode, v.scroll, v.shift = modeDetail, 0, 0
	case key.Matches(msg, k.Tables):
		v.mode = map[int]int{modeRuns: modeTimes, modeTimes: modeGains, modeGains: modeRuns, modeDetail: modeTimes}[v.mode]
		v.scroll, v.shift = 0, 0
	case key.Matches(msg, k.Reload):
		v.reloading = true
		return v, v.load()
	case key.Matches(msg, k.CSV), key.Matches(msg, k.Markdown):
		kind := jobs.TimeTable
		if v.mode == modeGains {
			kind = jobs.GainTable
		}
		t, _ := v.table(kind)
		f := jobs.FormatCSV
		if key.Matches(msg, k.Markdown) {
			f = jobs.FormatMarkdown
		}
		return v, exportTable(t, f)
	}
	return v, nil
}

// exportTable writes a table to ./gridtui-table-<III|IV>-n<N>.<csv|md>.
func exportTable(t jobs.Table, f jobs.TableFormat) tea.Cmd {
	return func() tea.Msg {
		name := "III"
		if t.Kind == jobs.GainTable {
			name = "IV"
		}
		ext := "csv"
		if f == jobs.FormatMarkdown {
			ext = "md"
		}
		path := filepath.Join(".", fmt.Sprintf("gridtui-table-%s-%s-n%d.%s", name, orDefault(t.Instance.App, defaultApp), t.N, ext))
		file, err := os.Create(path)
		if err != nil {
			return exportDoneMsg{path: path, err: fmt.Errorf("ui: export %s: %w", path, err)}
		}
		werr := t.Write(file, f)
		if cerr := file.Close(); werr == nil && cerr != nil {
			werr = fmt.Errorf("ui: export %s: %w", path, cerr)
		}
		return exportDoneMsg{path: path, err: werr}
	}
}

// View renders the runs, a table or a run's details.
func (v ResultsView) View() string {
	c, s := v.common, v.common.Styles
	switch {
	case v.err != nil:
		return placeBody(c, s.Err.Render("Cannot read the results store:")+"\n"+wrap(v.err.Error(), c.Width))
	case !v.loaded:
		return placeBody(c, s.Dim.Render("Reading the results store…"))
	case v.res == nil || len(v.res.Records) == 0:
		path := ""
		if v.res != nil {
			path = " (" + v.res.Path + ")"
		}
		return placeBody(c, s.Title.Render("No runs recorded yet")+"\n"+s.Dim.Render(wrap("Runs started from Compose or `gridtui run` are recorded in the results store"+path+".", c.Width)))
	}
	h := c.bodyHeight()
	title := s.Title.Render("Results") + s.Dim.Render(fmt.Sprintf(" — %s · %s", count(len(v.res.Records), "run", "runs"), v.res.Path))
	if n := len(v.res.Corrupt); n > 0 || v.res.Truncated {
		title += s.Warn.Render(fmt.Sprintf(" · %d corrupt line(s) skipped", n))
	}
	var body []string
	if v.mode == modeRuns {
		body = strings.Split(v.list.render(s, 0, 1, c.Width, h-2), "\n")
	} else {
		p := v.page()
		body = p.render(s, c.Width, h-2)
	}
	out := append([]string{fitLine(title, c.Width)}, body...)
	out = append(out, s.Dim.Render(v.message))
	return placeBody(c, strings.Join(out, "\n"))
}

// gainChart draws the gains of Table IV against cores, one series per
// grid and scheme (the study's terminal chart), below the table when at
// least 8 lines are left; otherwise nothing.
func gainChart(t jobs.Table, width, height int) []string {
	if height < 8 || len(t.Rows) < 2 {
		return nil
	}
	var b strings.Builder
	if err := jobs.RenderGainChart(&b, width, height, t); err != nil {
		return nil
	}
	return append([]string{""}, strings.Split(strings.TrimRight(b.String(), "\n"), "\n")...)
}

// scrollLines returns h lines from first (bounded).
func scrollLines(lines []string, first, h int) []string {
	first = max(0, min(first, len(lines)-h))
	out := clipWindow(lines, first, h)
	for len(out) < h {
		out = append(out, "")
	}
	return out
}

// recordDetail is the text of one recorded run.
func recordDetail(r jobs.RunRecord) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Run %s — %s\n", r.ID, r.Time.UTC().Format("2006-01-02 15:04:05 UTC"))
	fmt.Fprintf(&b, "job: %s, %s, %s iterations (%s detector), %s, %s, grid %s\n",
		orDefault(r.Job.Name, "-"), r.Job.Instance(), r.Job.Scheme, orDefault(string(r.Job.Detector), "default"),
		count(r.Job.Nodes, "node", "nodes"), count(r.Job.Cores, "core", "cores"), orDefault(r.Job.Grid, "-"))
	fmt.Fprintf(&b, "inventory: %s\n", jobs.InventoryName(r.Job.Inventory))
	fmt.Fprintf(&b, "console on %s (%s/%s, %s)\n", r.Machine.Host, r.Machine.OS, r.Machine.Arch, count(r.Machine.Cores, "core", "cores"))
	outcome := r.Outcome
	if r.Reason != "" {
		outcome += ": " + r.Reason
	}
	fmt.Fprintf(&b, "outcome: %s · wall time %.3f s\n", outcome, r.WallSeconds)
	switch {
	case r.TrueResidual != nil && r.ResidualReported:
		fmt.Fprintf(&b, "residual: %s (ε = %g), reported by the parts: not measured\n", sci(float64(*r.TrueResidual)), r.Job.Eps)
	case r.TrueResidual != nil:
		fmt.Fprintf(&b, "true global residual: %s (ε = %g)\n", sci(float64(*r.TrueResidual)), r.Job.Eps)
	}
	for _, c := range r.AppChecks() {
		ok := "OK"
		if !c.OK {
			ok = "VIOLATED"
		}
		text := c.Text
		if text == "" {
			text = fmt.Sprintf("%.3g", float64(c.Value))
		}
		fmt.Fprintf(&b, "%s: %s %s\n", c.Name, ok, text)
	}
	b.WriteString("\nrank  node          cluster   cores  iterations  local σ   compute s  send s  wait s  error\n")
	for _, n := range r.Nodes {
		fmt.Fprintf(&b, "%-5d %s %s %5d  %10d  %-8s  %9.3f  %6.3f  %6.3f  %s\n",
			n.Rank, columns.PadRight(n.Name, 13), columns.PadRight(n.Cluster, 9), n.Cores, n.Iterations, sci(float64(n.Sigma)), n.ComputeSeconds, n.SendSeconds, n.WaitSeconds, n.Err)
	}
	return strings.TrimRight(b.String(), "\n")
}
