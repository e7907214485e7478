package results

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/ui/common"
	"github.com/gridtui/gridtui/ui/widget/list"
	"github.com/gridtui/gridtui/ui/widget/pager"
	"github.com/gridtui/gridtui/ui/widget/text"
)

// Results view modes.
const (
	modeRuns = iota
	modeTimes
	modeGains
	modeDetail
)

// Model lists past runs from the results store, shows the paper's
// Table III (times) and Table IV (gains) by cores × grid × scheme for the
// selected run's problem, exports them, and opens a run for its details.
type Model struct {
	common *common.Common
	store  string // the store setting: "" = jobs.DataDir's default
	res    *jobs.Results
	err    error
	loaded bool
	mode   int
	list   list.Model
	// scroll is the first line shown of a run's details or a table.
	scroll  int
	shift   int // and how far it is scrolled sideways
	message string
	// reloading is set by R until the store is read again, which then
	// says so (a reload that changed nothing looked like no reload).
	reloading bool
	// reading is set while the store is read; stamp is its file as last
	// read: the watch reads it again when it changes (results_watch.go).
	reading bool
	stamp   storeStamp
}

// Messages of the Results page.
type (
	// LoadedMsg is the content of the results store (or why it is
	// unreadable): every page may take it (Compose predicts from it).
	LoadedMsg struct {
		Res   *jobs.Results
		Err   error
		stamp storeStamp // the file's, taken before it was read
	}
	// ExportedMsg reports a table written to a file (or why not).
	ExportedMsg struct {
		Path string
		Err  error
	}
)

// New returns the Results view of the store at setting ("" =
// the default data directory), empty until the store is read.
func New(c *common.Common, setting string) Model {
	return Model{common: c, store: setting, list: common.NewList(c, []list.Column{
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

// Load reads the results store (jobs.Load) in a command.
func (v Model) Load() tea.Cmd {
	setting := v.store
	return func() tea.Msg {
		dir, err := jobs.DataDir(setting)
		if err != nil {
			return LoadedMsg{Err: err}
		}
		stamp := stampOf(setting)
		res, err := jobs.Load(dir)
		return LoadedMsg{Res: res, Err: err, stamp: stamp}
	}
}

// SetResults shows the content of a results store (or why it is unreadable).
func (v *Model) SetResults(res *jobs.Results, err error) {
	v.res, v.err, v.loaded = res, err, true
	var rows []list.Row
	if res != nil {
		for i := len(res.Records) - 1; i >= 0; i-- { // newest first
			r := res.Records[i]
			resid, n := "–", "–" // n: an application that declares none records 0
			if r.TrueResidual != nil {
				resid = common.Sci(float64(*r.TrueResidual))
			}
			if r.Job.N > 0 {
				n = strconv.Itoa(r.Job.N)
			}
			row := list.Row{Key: r.ID, Leaf: true, Cells: []string{
				r.Time.UTC().Format("01-02 15:04"), common.OrDefault(r.Job.Name, r.ID), string(r.Job.Scheme),
				strconv.Itoa(r.Job.Nodes), strconv.Itoa(r.Job.Cores), n,
				strconv.FormatFloat(r.WallSeconds, 'f', 2, 64), resid, r.Outcome,
			}}
			if !r.OK() {
				row.Tone = list.ToneErr
			}
			rows = append(rows, row)
		}
	}
	v.list.SetRows(rows)
}

// selectedRecord returns the run under the cursor.
func (v *Model) selectedRecord() (jobs.RunRecord, bool) {
	r, ok := v.list.Selected()
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
func (v *Model) table(kind jobs.TableKind) (jobs.Table, bool) {
	rec, ok := v.selectedRecord()
	if !ok {
		return jobs.Table{}, false
	}
	return jobs.BuildTableOf(kind, v.res.Records, rec.Job.Instance()), true
}

// keyMap is the Results view's key map (help.KeyMap): the runs'
// list's keys, or the page's (a run's details, a table) in front of it.
type keyMap struct {
	Tables, CSV, Markdown, Reload key.Binding
	list                          list.Bindings
	page                          pager.Bindings
	nav                           []key.Binding
	paged                         bool
}

// keyMap returns the bindings of the current mode.
func (v Model) keyMap() keyMap {
	k := v.common.Keys
	_, sel := v.selectedRecord()
	rk := keyMap{
		Tables:   common.Enabled(common.Bind("t", "Table III/IV", "t"), sel),
		CSV:      common.Enabled(common.Bind("c", "export CSV", "c"), sel),
		Markdown: common.Enabled(common.Bind("m", "export Markdown", "m"), sel),
		Reload:   common.Bind("R", "reload", "R"),
		nav:      k.NavKeys(),
	}
	if v.mode == modeRuns {
		shown := v.shown()
		rk.list = v.list.Bindings().Only(shown)
		rk.nav = k.NavOnly(shown)
		rk.Reload = common.Enabled(rk.Reload, v.loaded)
		rk.list.Details.SetHelp("enter", "open run")
		return rk
	}
	p := v.page()
	rk.page, rk.paged = p.Bindings(v.common.Width, v.pageHeight()), true
	return rk
}

// ShortHelp implements help.KeyMap.
func (k keyMap) ShortHelp() []key.Binding {
	if k.paged {
		return []key.Binding{k.page.Close, k.Tables, k.CSV, k.Markdown, k.page.Copy}
	}
	return []key.Binding{k.list.Details, k.Tables, k.CSV, k.Markdown, k.list.Filter}
}

// FullHelp implements help.KeyMap.
func (k keyMap) FullHelp() [][]key.Binding {
	own := []key.Binding{k.Tables, k.Reload, k.CSV, k.Markdown}
	if k.paged {
		return append([][]key.Binding{own}, k.page.FullHelp()...)
	}
	return [][]key.Binding{own, k.list.Column(), k.nav}
}

func (v Model) help() help.KeyMap { return v.keyMap() }

// pageHeight is the height of a page (a run's details, a table): the body
// less the view's title and message lines.
func (v Model) pageHeight() int { return v.common.BodyHeight() - 2 }

// untimed says why a problem's table has no row: none of its runs
// finished (each outcome counted), and what a table counts.
func (v Model) untimed(in jobs.Instance) string {
	outcomes := map[string]int{}
	for _, r := range v.res.Records {
		if in.Has(r.Job) {
			outcomes[common.OrDefault(r.Outcome, "unknown")]++
		}
	}
	var parts []string
	for _, o := range slices.Sorted(maps.Keys(outcomes)) {
		parts = append(parts, fmt.Sprintf("%d %s", outcomes[o], o))
	}
	return fmt.Sprintf("No finished run of this problem to time (%s): the tables count the runs that ended ok; run it to the end once.",
		strings.Join(parts, ", "))
}

// page is what the view shows instead of the runs: the selected run's
// details (wrapped) or a table (cut, so that its columns stay aligned).
func (v Model) page() pager.Model {
	var p pager.Model
	switch v.mode {
	case modeDetail:
		rec, _ := v.selectedRecord()
		title, rest, _ := strings.Cut(recordDetail(rec), "\n")
		p = common.NewPager(v.common, pager.New(title, rest))
	case modeTimes, modeGains:
		kind := jobs.TimeTable
		if v.mode == modeGains {
			kind = jobs.GainTable
		}
		t, _ := v.table(kind)
		lines := strings.Split(strings.TrimRight(t.Text(), "\n"), "\n")
		if len(t.Rows) == 0 {
			lines = append(lines, "", common.Wrap(v.untimed(t.Instance), v.common.Width))
		}
		if kind == jobs.GainTable {
			lines = append(lines, gainChart(t, v.common.Width, v.pageHeight()-2-len(lines))...)
		}
		p = common.NewPager(v.common, pager.New(lines[0], strings.Join(lines[1:], "\n")))
		p.NoWrap = true
	}
	p.Scroll, p.Shift = v.scroll, v.shift
	return p
}

func (v Model) capturing() bool { return v.list.Filtering() }

// shown reports whether the runs are on screen (a store read, with runs).
func (v Model) shown() bool {
	return v.err == nil && v.loaded && v.res != nil && len(v.res.Records) > 0
}

// update handles the view's keys and the store's messages.
func (v Model) update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case LoadedMsg:
		v.SetResults(msg.Res, msg.Err)
		v.stamp, v.reading = msg.stamp, false
		if v.reloading && msg.Err == nil && msg.Res != nil {
			v.message = "read again: " + common.Count(len(msg.Res.Records), "run", "runs")
		}
		v.reloading = false
	case storeStatMsg:
		return v.storeStat(msg)
	case ExportedMsg:
		v.message = "exported " + msg.Path
		if msg.Err != nil {
			v.message = "export failed: " + msg.Err.Error()
		}
	case tea.MouseClickMsg:
		if v.mode == modeRuns {
			v.list.Click(msg.X, msg.Y)
		}
	case tea.KeyPressMsg:
		return v.key(msg)
	}
	return v, nil
}

func (v Model) key(msg tea.KeyPressMsg) (Model, tea.Cmd) {
	if v.mode == modeRuns && v.shown() && v.list.Update(msg, v.common.BodyHeight()-2) {
		return v, nil
	}
	k := v.keyMap()
	if k.paged {
		p := v.page()
		if ok, cmd := p.Update(msg, v.common.Width, v.pageHeight()); ok {
			v.scroll, v.shift = p.Scroll, p.Shift
			if !p.Open {
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
		v.reloading, v.reading = true, true
		return v, v.Load()
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
		path := filepath.Join(".", fmt.Sprintf("gridtui-table-%s-%s-n%d.%s", name, common.OrDefault(t.Instance.App, jobs.DefaultSpec().App), t.N, ext))
		file, err := os.Create(path)
		if err != nil {
			return ExportedMsg{Path: path, Err: fmt.Errorf("ui: export %s: %w", path, err)}
		}
		werr := t.Write(file, f)
		if cerr := file.Close(); werr == nil && cerr != nil {
			werr = fmt.Errorf("ui: export %s: %w", path, cerr)
		}
		return ExportedMsg{Path: path, Err: werr}
	}
}

// View renders the runs, a table or a run's details.
func (v Model) View() string {
	c, s := v.common, v.common.Styles
	switch {
	case v.err != nil:
		return common.Place(c, s.Err.Render("Cannot read the results store:")+"\n"+common.Wrap(v.err.Error(), c.Width))
	case !v.loaded:
		return common.Place(c, s.Dim.Render("Reading the results store…"))
	case v.res == nil || len(v.res.Records) == 0:
		path := ""
		if v.res != nil {
			path = " (" + v.res.Path + ")"
		}
		return common.Place(c, s.Title.Render("No runs recorded yet")+"\n"+s.Dim.Render(common.Wrap("Runs started from Compose or `gridtui run` are recorded in the results store"+path+".", c.Width)))
	}
	h := c.BodyHeight()
	title := s.Title.Render("Results") + s.Dim.Render(fmt.Sprintf(" — %s · %s", common.Count(len(v.res.Records), "run", "runs"), v.res.Path))
	if n := len(v.res.Corrupt); n > 0 || v.res.Truncated {
		title += s.Warn.Render(fmt.Sprintf(" · %d corrupt line(s) skipped", n))
	}
	var body []string
	if v.mode == modeRuns {
		body = strings.Split(v.list.Render(0, 1, c.Width, h-2), "\n")
	} else {
		p := v.page()
		body = p.Render(c.Width, h-2)
	}
	out := append([]string{text.Fit(title, c.Width)}, body...)
	out = append(out, s.Dim.Render(v.message))
	return common.Place(c, strings.Join(out, "\n"))
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
	out := common.ClipWindow(lines, first, h)
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
		common.OrDefault(r.Job.Name, "-"), r.Job.Instance(), r.Job.Scheme, common.OrDefault(string(r.Job.Detector), "default"),
		common.Count(r.Job.Nodes, "node", "nodes"), common.Count(r.Job.Cores, "core", "cores"), common.OrDefault(r.Job.Grid, "-"))
	fmt.Fprintf(&b, "inventory: %s\n", jobs.InventoryName(r.Job.Inventory))
	fmt.Fprintf(&b, "console on %s (%s/%s, %s)\n", r.Machine.Host, r.Machine.OS, r.Machine.Arch, common.Count(r.Machine.Cores, "core", "cores"))
	outcome := r.Outcome
	if r.Reason != "" {
		outcome += ": " + r.Reason
	}
	fmt.Fprintf(&b, "outcome: %s · wall time %.3f s\n", outcome, r.WallSeconds)
	switch {
	case r.TrueResidual != nil && r.ResidualReported:
		fmt.Fprintf(&b, "residual: %s (ε = %g), reported by the parts: not measured\n", common.Sci(float64(*r.TrueResidual)), r.Job.Eps)
	case r.TrueResidual != nil:
		fmt.Fprintf(&b, "true global residual: %s (ε = %g)\n", common.Sci(float64(*r.TrueResidual)), r.Job.Eps)
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
		fmt.Fprintf(&b, "%-5d %-13s %-9s %5d  %10d  %-8s  %9.3f  %6.3f  %6.3f  %s\n",
			n.Rank, n.Name, n.Cluster, n.Cores, n.Iterations, common.Sci(float64(n.Sigma)), n.ComputeSeconds, n.SendSeconds, n.WaitSeconds, n.Err)
	}
	return strings.TrimRight(b.String(), "\n")
}
