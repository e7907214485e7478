package compose

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/engine/worker"
	"github.com/gridtui/gridtui/jobs"
)

// pickRow is one row of the Nodes pane: a cluster or a host.
type pickRow struct {
	cluster string // set on cluster rows
	host    string // set on host rows
	cores   int
}

func (v *Model) pickRows() []pickRow {
	var rows []pickRow
	if v.inv == nil {
		return rows
	}
	for _, s := range v.inv.Sites {
		for _, c := range s.Clusters {
			rows = append(rows, pickRow{cluster: c.Name, cores: c.Cores})
			for _, h := range c.Hosts {
				rows = append(rows, pickRow{host: h.Name, cores: h.Cores})
			}
		}
	}
	return rows
}

// hierRow is one row of the Hierarchy pane.
type hierRow struct {
	group  int // -1: the submitter
	worker string
}

func (v *Model) hierRows() []hierRow {
	rows := []hierRow{{group: -1}}
	for i, g := range v.hierarchy() {
		rows = append(rows, hierRow{group: i})
		for _, w := range g.Workers {
			rows = append(rows, hierRow{group: i, worker: w})
		}
	}
	return rows
}

func (v *Model) paneLen(p int) int {
	switch p {
	case paneNodes:
		return max(1, len(v.pickRows()))
	case paneHierarchy:
		return len(v.hierRows())
	case panePredict:
		return len(v.predictRows())
	}
	return len(v.fields)
}

// toggleNode toggles the host, or the whole cluster, under the cursor.
func (v *Model) toggleNode() {
	rows := v.pickRows()
	i := v.cursor[paneNodes]
	if i >= len(rows) {
		return
	}
	r := rows[i]
	if r.host != "" {
		v.picked[r.host] = !v.picked[r.host]
	} else {
		all := true
		for _, h := range v.clusterHosts(r.cluster) {
			all = all && v.picked[h]
		}
		for _, h := range v.clusterHosts(r.cluster) {
			v.picked[h] = !all
		}
	}
	// The node set changed: the loaded file's node selection no longer
	// matters; a hand-edited hierarchy and rank order keep what applies.
	v.unknown, v.selErr = nil, ""
	v.keepOrder()
	if note := v.keepHierarchy(); note != "" {
		v.status = note
	}
	v.validate()
}

func (v *Model) clusterHosts(cluster string) []string {
	var out []string
	for _, h := range v.inv.Hosts() {
		if h.Cluster == cluster {
			out = append(out, h.Name)
		}
	}
	return out
}

// hierarchyKey edits the hierarchy: m moves the worker under the cursor to
// the next group, n to a new group, c makes it its group's coordinator.
func (v *Model) hierarchyKey(msg tea.KeyPressMsg, k composeKeyMap) {
	rows := v.hierRows()
	i := v.cursor[paneHierarchy]
	if i >= len(rows) || rows[i].worker == "" {
		return
	}
	r := rows[i]
	groups := cloneGroups(v.hierarchy())
	switch {
	case key.Matches(msg, k.Coordinator):
		groups[r.group].Coordinator = r.worker
	case key.Matches(msg, k.Move), key.Matches(msg, k.NewGroup):
		src := r.group
		before := len(groups)
		groups = removeWorker(groups, src, r.worker)
		if len(groups) < before && src < len(groups) {
			src = -1 // the source group vanished
		}
		to := len(groups) // a new group
		if key.Matches(msg, k.Move) {
			// the next group after the source, wrapping, but never the source
			for _, cand := range []int{r.group + 1 - (before - len(groups)), 0} {
				if cand >= 0 && cand < len(groups) && cand != src {
					to = cand
					break
				}
			}
		}
		if to == len(groups) {
			groups = append(groups, jobs.Group{Coordinator: r.worker})
		}
		groups[to].Workers = append(groups[to].Workers, r.worker)
	default:
		return
	}
	v.groups = groups
	v.validate()
	// keep the cursor on the worker that moved
	for j, row := range v.hierRows() {
		if row.worker == r.worker {
			v.cursor[paneHierarchy] = j
		}
	}
}

func cloneGroups(gs []jobs.Group) []jobs.Group {
	out := make([]jobs.Group, len(gs))
	for i, g := range gs {
		out[i] = jobs.Group{Coordinator: g.Coordinator, Workers: slices.Clone(g.Workers)}
	}
	return out
}

// removeWorker takes w out of group g; a group left empty disappears, and a
// group that lost its coordinator gets its first remaining worker.
func removeWorker(gs []jobs.Group, g int, w string) []jobs.Group {
	gs[g].Workers = slices.DeleteFunc(gs[g].Workers, func(x string) bool { return x == w })
	if len(gs[g].Workers) == 0 {
		return slices.Delete(gs, g, g+1)
	}
	if gs[g].Coordinator == w {
		gs[g].Coordinator = gs[g].Workers[0]
	}
	return gs
}

// composeKeyMap is the Compose view's key map (help.KeyMap): each pane's
// keys are enabled in that pane only, so the help lists what acts where the
// cursor is.
type composeKeyMap struct {
	Pane, Edit, Cycle, Toggle, Start, Save, Load key.Binding
	// Copy puts the job's `gridtui run` command line on the clipboard.
	Copy                        key.Binding
	Move, NewGroup, Coordinator key.Binding
	// prevPane is the left half of Pane (one pane back).
	prevPane key.Binding
	nav      []key.Binding
}

// keyMap returns the bindings of the pane in focus.
func (v Model) keyMap() composeKeyMap {
	k := v.common.Keys
	form, nodes, hier, pred := v.pane == paneForm, v.pane == paneNodes, v.pane == paneHierarchy, v.pane == panePredict
	edit := "edit field / cycle choice"
	if form {
		switch v.fields[v.cursor[paneForm]].Kind {
		case kindChoice:
			edit = "cycle choice"
		case kindButton:
			edit = "start run"
		default:
			edit = "edit field (enter keeps, esc cancels)"
		}
	}
	if pred {
		edit = "edit what-if figures (empty: back to measured)"
	}
	onWorker := false
	if rows := v.hierRows(); hier && v.cursor[paneHierarchy] < len(rows) {
		onWorker = rows[v.cursor[paneHierarchy]].worker != ""
	}
	km := composeKeyMap{
		Pane:        bind("←/→", "pane", "left", "right"),
		prevPane:    bind("←", "previous pane", "left"),
		Edit:        enabled(bind("enter", edit, "enter"), form || pred),
		Cycle:       enabled(bind("space", "cycle choice", "space"), form && v.fields[v.cursor[paneForm]].Kind == kindChoice),
		Toggle:      enabled(bind("space", "toggle node or cluster", "space", "enter"), nodes && len(v.pickRows()) > 0),
		Start:       bind("r", "start run", "r"),
		Save:        bind("ctrl+s", "save job file", "ctrl+s"),
		Load:        bind("ctrl+o", "load job file", "ctrl+o"),
		Copy:        bind("y", "copy the job's gridtui run command line", "y"),
		Move:        enabled(bind("m", "move worker to next group", "m"), onWorker),
		NewGroup:    enabled(bind("n", "worker to a new group", "n"), onWorker),
		Coordinator: enabled(bind("c", "make coordinator", "c"), onWorker),
		nav:         k.NavKeys(),
	}
	if pred && len(v.predictRows()) < 2 {
		km.nav = nil // the node count alone: nothing to move between
	}
	return km
}

// ShortHelp implements help.KeyMap.
func (k composeKeyMap) ShortHelp() []key.Binding {
	short := k
	short.Edit.SetHelp("enter", "edit/cycle")
	if strings.HasPrefix(k.Edit.Help().Desc, "edit what-if") {
		short.Edit.SetHelp("enter", "edit what-if")
	}
	short.Toggle.SetHelp("space", "toggle node/cluster")
	short.Move.SetHelp("m", "move to next group")
	short.NewGroup.SetHelp("n", "new group")
	short.Coordinator.SetHelp("c", "coordinator")
	short.Save.SetHelp("ctrl+s", "save")
	short.Load.SetHelp("ctrl+o", "load")
	return []key.Binding{k.Pane, short.Edit, short.Toggle, short.Move, short.NewGroup, short.Coordinator, k.Start, short.Save, short.Load}
}

// FullHelp implements help.KeyMap.
func (k composeKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Pane, k.Edit, k.Cycle, k.Toggle, k.Start},
		{k.Move, k.NewGroup, k.Coordinator, k.Save, k.Load, k.Copy},
		k.nav,
	}
}

func (v Model) help() help.KeyMap {
	if v.editing {
		return v.editKeys()
	}
	return v.keyMap()
}

// View renders the form on the left, the node picker and the hierarchy on
// the right, and the live validation underneath.
func (v Model) View() string {
	c, s := v.common, v.common.Styles
	if v.inv == nil || len(v.inv.Hosts()) == 0 {
		return placeBody(c, s.Title.Render("Nothing to compose")+"\n"+s.Dim.Render("The inventory lists no hosts."))
	}
	h := c.BodyHeight()
	probH := min(len(v.problems), max(1, h/5)) + 1
	mainH := h - probH
	lw := formWidth(c)
	rw := c.Width - lw - 1
	left := v.formLines(lw, mainH)
	pred := v.predictLines(rw, mainH)
	// The pane in focus gets the room: the Predict panel half the height
	// from the form, most of it in focus, a quarter beside the nodes and
	// the hierarchy in focus.
	predH := min(len(pred), max(8, mainH/2))
	switch v.pane {
	case panePredict:
		predH = min(len(pred), max(predH, mainH-6))
	case paneNodes, paneHierarchy:
		predH = min(len(pred), max(4, mainH/4))
	}
	topH := mainH - predH // the nodes and the hierarchy
	nodesNeed, hierNeed := len(v.pickRows())+1, len(v.hierRows())+2
	nodesH := nodesNeed
	if nodesNeed+hierNeed > topH {
		nodesH = max(3, min(nodesNeed, topH-max(3, min(hierNeed, topH/2))))
	}
	right := v.paneTitle(paneNodes, "Nodes", fmt.Sprintf(" (%d chosen)", len(v.chosen())))
	right = append(right, v.pickLines(rw, nodesH-1)...)
	right = append(right, v.paneTitle(paneHierarchy, "Hierarchy", " ("+count(len(v.hierarchy()), "group", "groups")+")")...)
	hierY := len(right)
	right = append(right, v.hierLines(rw, max(0, topH-len(right)))...)
	predY := len(right)
	right = append(right, foldPredict(s, pred, mainH-predY, v.pane == panePredict)...)
	v.drawn.record(v, lw, rw, nodesH-1, hierY, predY-hierY, predY, mainH-predY)
	out := make([]string, 0, h)
	for i := 0; i < mainH; i++ {
		l, r := "", ""
		if i < len(left) {
			l = left[i]
		}
		if i < len(right) {
			r = right[i]
		}
		out = append(out, padRight(l, lw)+"│"+padRight(r, rw))
	}
	out = append(out, v.validationLines(c.Width, probH)...)
	return placeBody(c, strings.Join(out, "\n"))
}

// foldPredict fits the Predict panel's lines into room; a panel cut at the
// screen's foot says so on its last line (how many lines are hidden, and
// that focusing the panel gives it the room, or, focused, that a taller
// terminal does), so that the outlook is never below the fold without a
// word.
func foldPredict(s *Styles, pred []string, room int, focused bool) []string {
	if room <= 0 {
		return nil
	}
	if len(pred) <= room {
		return pred
	}
	if room < 2 {
		return pred[:room]
	}
	hidden := len(pred) - room + 1
	out := slices.Clone(pred[:room-1])
	hint := fmt.Sprintf("  ↓ %d more: focus Predict (→)", hidden)
	if focused {
		hint = fmt.Sprintf("  ↓ %d more: needs a taller terminal", hidden)
	}
	return append(out, s.Dim.Render(hint))
}

func (v Model) paneTitle(p int, title, note string) []string {
	s := v.common.Styles
	if v.pane == p {
		return []string{s.Title.Render("▸ "+title) + s.Dim.Render(note)}
	}
	return []string{"  " + title + s.Dim.Render(note)}
}

// formLines renders the form in w×h: its title, then the fields, the
// focused parameter's help and the status, scrolled so that the cursor's
// field shows (an application may declare many parameters).
func (v Model) formLines(w, h int) []string {
	s := v.common.Styles
	var out []string
	for i, f := range v.fields {
		val := f.Value
		switch f.Kind {
		case kindChoice:
			val = "‹" + val + "›"
		case kindButton:
			val = ""
		}
		switch {
		case v.editing && i == v.cursor[paneForm]:
			val = v.input.View()
		case v.badFields[f.ID]:
			val += s.Err.Render(" ✗")
		case f.ID == fCores && strings.TrimSpace(val) == "0":
			val += s.Dim.Render(" = all cores") // of each host (jobs.Spec.Cores)
		}
		mark := " "
		if v.pane == paneForm && i == v.cursor[paneForm] {
			mark = "›"
		}
		line := padRight(mark+" "+f.Label, 18) + " " + val
		if mark == "›" {
			line = s.Selected.Render(padRight(line, w))
		}
		out = append(out, line)
	}
	if about := v.about(); about != "" && v.pane == paneForm {
		out = append(out, "")
		for _, l := range strings.Split(wrap(about, w), "\n") {
			out = append(out, s.Dim.Render(l))
		}
	}
	if v.status != "" {
		out = append(out, "")
		for _, l := range strings.Split(wrap(v.status, w), "\n") {
			out = append(out, s.Dim.Render(l)) // one row each: a row holds no newline
		}
	}
	return append(v.paneTitle(paneForm, "Job", ""), clipWindow(out, formFirst(v.cursor[paneForm], h), h-1)...)
}

// formFirst is the first field row shown in a form of h lines (its title
// included) with the cursor on field cur.
func formFirst(cur, h int) int { return scrollFirst(cur, max(1, h-1)) }

func (v Model) pickLines(w, h int) []string {
	s := v.common.Styles
	rows := v.pickRows()
	// A host is ticked when the job takes it: one picked but past "Take N
	// nodes" reads "[·]" (picked, not taken), so that Take N = 1 shows one
	// box ticked, not every picked one.
	taken := map[string]bool{}
	for _, h := range v.chosen() {
		taken[h.Name] = true
	}
	lines := make([]string, len(rows))
	for i, r := range rows {
		var line string
		if r.host != "" {
			box, note := "[ ]", ""
			switch {
			case taken[r.host]:
				box = "[x]"
			case v.picked[r.host]:
				box, note = "[·]", " not taken"
			}
			line = "    " + box + " " + r.host + s.Dim.Render(" "+strconv.Itoa(r.cores)+"c"+note)
		} else {
			n, all := 0, v.clusterHosts(r.cluster)
			for _, hname := range all {
				if taken[hname] {
					n++
				}
			}
			box := "[ ]"
			switch {
			case n == len(all) && n > 0:
				box = "[x]"
			case n > 0:
				box = "[-]"
			}
			line = "  " + box + " " + r.cluster + s.Dim.Render(fmt.Sprintf(" %d/%d", n, len(all)))
		}
		if v.pane == paneNodes && i == v.cursor[paneNodes] {
			line = s.Selected.Render(padRight("›"+line[1:], w))
		}
		lines[i] = line
	}
	return scrollTo(lines, v.cursor[paneNodes], h)
}

func (v Model) hierLines(w, h int) []string {
	s := v.common.Styles
	groups := v.hierarchy()
	levels := worker.Levels(groups)
	rows := v.hierRows()
	lines := make([]string, len(rows))
	for i, r := range rows {
		var line string
		switch {
		case r.group < 0:
			line = "  submitter (this console)"
			if len(levels) > 1 {
				line += s.Dim.Render(" · " + worker.DescribeLevels(levels))
			}
		case r.worker == "":
			g := groups[r.group]
			line = fmt.Sprintf("  └ group %d: %s, coordinator %s", r.group, count(len(g.Workers), "worker", "workers"), g.Coordinator)
			if len(g.Workers) > jobs.MaxGroupSize {
				line += " (too many!)"
			}
			if k := coordinatorLevel(levels, g.Coordinator); k > 0 {
				line += s.Dim.Render(fmt.Sprintf(" · also coordinates at level %d", k+1))
			}
		default:
			line = "      └ " + r.worker
			if groups[r.group].Coordinator == r.worker {
				line += " ★ coordinator"
			}
		}
		if v.pane == paneHierarchy && i == v.cursor[paneHierarchy] {
			line = s.Selected.Render(padRight("›"+line[1:], w))
		}
		lines[i] = line
	}
	if len(groups) == 0 {
		lines = append(lines, s.Dim.Render("    (no workers: choose nodes)"))
	}
	return scrollTo(lines, v.cursor[paneHierarchy], h)
}

// coordinatorLevel is the highest level above the groups (1, 2, …) at
// which node coordinates coordinators, 0 if none.
func coordinatorLevel(levels [][]jobs.Group, node string) int {
	top := 0
	for k := 1; k < len(levels); k++ {
		for _, g := range levels[k] {
			if g.Coordinator == node {
				top = k
			}
		}
	}
	return top
}

func (v Model) validationLines(w, h int) []string {
	s := v.common.Styles
	if len(v.problems) == 0 {
		n := len(v.chosen())
		line, _ := jobs.CommandLine(v.Spec())
		ready := fmt.Sprintf("✓ ready: %s, %s — press r (or enter on Start) to run", count(n, "node", "nodes"), count(len(v.pairs), "neighbour pair", "neighbour pairs"))
		if cellWidth(ready)+cellWidth(line)+14 > w {
			ready = fmt.Sprintf("✓ ready: %s, %s — r runs", count(n, "node", "nodes"), count(len(v.pairs), "pair", "pairs"))
		}
		return []string{s.OK.Render(ready) + s.Dim.Render(fitLine(" · y copies: "+line, max(0, w-cellWidth(ready))))}
	}
	out := []string{s.Err.Render(fitLine(fmt.Sprintf("✗ %d problem(s):", len(v.problems)), w))}
	for i, p := range v.problems {
		if len(out) == h-1 && i < len(v.problems)-1 {
			out = append(out, s.Err.Render(fitLine(fmt.Sprintf("  … and %d more (their fields are marked ✗)", len(v.problems)-i), w)))
			break
		}
		out = append(out, s.Err.Render(fitLine("  • "+p, w)))
	}
	return out
}

// scrollTo returns h lines of lines that include index cur.
func scrollTo(lines []string, cur, h int) []string {
	if h <= 0 {
		return nil
	}
	return clipWindow(lines, scrollFirst(cur, h), h)
}

// scrollFirst is the first of h lines that show line cur.
func scrollFirst(cur, h int) int {
	if cur >= h {
		return cur - h + 1
	}
	return 0
}

// clipWindow returns lines[first:first+h], bounded.
func clipWindow(lines []string, first, h int) []string {
	if first > len(lines) {
		first = len(lines)
	}
	end := min(len(lines), first+h)
	return lines[first:end]
}
