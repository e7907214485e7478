package compose

import (
	"fmt"
	"github.com/gridtui/gridtui/ui/page/network"
	"github.com/gridtui/gridtui/ui/page/results"
	"os"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/probe"
)

// Ids of the Compose form's fixed fields; the application's parameters
// come after fApp (formFields), with ids from fParam.
const (
	fName = iota
	fApp
	fMaxIter
	fWall
	fScheme
	fDetector
	fCores
	fAny
	fFile
	fStart
)

// fieldKind says how a form field is edited.
type fieldKind uint8

const (
	kindText   fieldKind = iota // enter edits, enter confirms
	kindChoice                  // space/enter cycles the options
	kindButton                  // enter acts
)

// field is one row of the Compose form.
type field struct {
	ID      int // fName…fStart, or fParam+i
	Label   string
	Value   string
	Kind    fieldKind
	Options []string
	// Param is the declaration of an application parameter's field.
	Param *gridapp.Param
}

// Compose panes.
const (
	paneForm = iota
	paneNodes
	paneHierarchy
	panePredict
	paneCount
)

// Model composes a job: nodes, cores, the application and its
// parameters, scheme and detector, and the submitter → coordinator → worker
// hierarchy, validated live. It produces a jobs.Spec.
type Model struct {
	common *Common
	inv    *inventory.Inventory
	htable *probe.Htable
	fields []field
	// wd is the console's working directory: a relative file parameter
	// (sparse's matrix) is joined to it, as gridtui run joins it to its own.
	wd string
	// clean is the job as its file last read (fingerprint at load, save
	// or start): what ctrl+o would lose is the difference.
	clean string
	// appValues keeps the parameters typed for each application the form
	// left, for when the user cycles back to it.
	appValues map[string]map[string]string
	// beforeBSP is the scheme and detector the form had when it cycled to
	// a BSP program (which runs synchronously), restored when it cycles
	// on to an application without supersteps; nil otherwise.
	beforeBSP *[2]string
	pane      int
	cursor    [paneCount]int
	editing   bool
	input     textinput.Model // the field being edited
	picked    map[string]bool
	// groups is the hierarchy when the user edited it; nil = automatic.
	groups   []jobs.Group
	plan     *engine.Plan // the engine's plan of the job, when it plans
	problems []string
	// badFields marks the form fields (by id) a problem is about (shown ✗);
	// formProblems counts the problems of the job itself (the first ones),
	// which its job file would be refused for.
	badFields    map[int]bool
	formProblems int
	pairs        []network.PairRoute
	status       string
	// unknown lists the sites, clusters and hosts a loaded job file names
	// that the inventory does not have; it blocks the run until the user
	// changes the node choice (the file's job cannot run as written).
	unknown []string
	// selErr is why a loaded job file's node selection names no host; it
	// blocks the run like unknown.
	selErr string
	// drawn is where the last frame drew the panes' rows, for clicks.
	drawn *composeDrawn
	// fc is the Predict panel.
	fc forecast
	// order is the rank order of a loaded selection of hosts listed out of
	// inventory order (a run keeps it); nil means inventory order. Changing
	// the node choice drops it.
	order []string
	// output is the loaded job file's [output] (where the solution is
	// written): the form has no field for it, the job keeps it.
	output jobs.Output
}

// Messages of the Compose view.
type (
	// StartRunMsg asks the root model to start a run of Spec.
	StartRunMsg struct{ Spec jobs.Spec }
	// SaveSpecMsg asks the root to write the job file.
	SaveSpecMsg struct {
		Path string
		Spec jobs.Spec
	}
	// SaveConfirmMsg asks the root to confirm saving a job that cannot
	// run as composed (its file is valid): Problems says why.
	SaveConfirmMsg struct {
		SaveSpecMsg
		Problems []string
	}
	// LoadSpecMsg asks the root to read a job file.
	LoadSpecMsg struct{ Path string }
	// LoadConfirmMsg asks before a load replaces edits not saved.
	LoadConfirmMsg struct{ LoadSpecMsg }
	// SpecSavedMsg reports a written job file.
	SpecSavedMsg struct {
		Path string
		Err  error
	}
	// SpecLoadedMsg carries a job file read from disk.
	SpecLoadedMsg struct {
		Path string
		Spec jobs.Spec
		Err  error
	}
)

// New returns a composer for the inventory's hosts, starting
// from the default job of `gridtui run` (jobs.DefaultSpec) on the hosts it
// takes: the first 8 of the inventory (all of a smaller one), picked by
// name so that the user sees which.
func New(c *Common, inv *inventory.Inventory) Model {
	v := Model{common: c, inv: inv, picked: map[string]bool{}, drawn: &composeDrawn{}}
	v.wd, _ = os.Getwd() // "" leaves a relative path to be refused, naming it
	d := jobs.DefaultSpec()
	take := d.Nodes.Any
	d.Nodes.Any = 0
	v.applySpec(d)
	for i, h := range v.chosen() {
		v.picked[h.Name] = i < take
	}
	v.field(fFile).Value = "job.toml"
	v.validate()
	v.markClean()
	return v
}

// markClean records the job as composed as the one a file holds (loaded,
// saved, or the default): ctrl+o asks before it replaces another.
func (v *Model) markClean() { v.clean = v.fingerprint() }

// fingerprint is the composed job as its file would read.
func (v *Model) fingerprint() string {
	b, _ := jobs.FormatSpec(v.Spec())
	return string(b)
}

// edited reports whether the job changed since it was loaded or saved.
func (v *Model) edited() bool { return v.fingerprint() != v.clean }

// SetHtable gives the composer the Htable used to check the job's pairs.
func (v *Model) SetHtable(h *probe.Htable) {
	v.htable = h
	v.validate()
}

// Pairs returns the routes of the job's neighbour pairs: the edges of the
// application's neighbour graph (a chain of slabs, blocks with up to six
// neighbours, a sparse matrix's partition), lower rank first.
func (v *Model) Pairs() []network.PairRoute { return v.pairs }

// Problems returns the live validation problems; empty means the job can start.
func (v *Model) Problems() []string { return v.problems }

// applySpec loads a spec into the form, the node picks and the hierarchy.
func (v *Model) applySpec(s jobs.Spec) {
	v.applyForm(s.WithDefaults()) // the form shows what will run, never a 0 standing for a default
	v.applyNodes(s.Nodes)
	v.groups = slices.Clone(s.Groups)
	v.output = s.Output
	v.validate()
}

// applyForm loads a spec's application, its parameters and the rest into
// the form fields.
func (v *Model) applyForm(s jobs.Spec) {
	v.setApp(orDefault(s.App, defaultApp), specParams(s))
	set := func(id int, val string) { v.field(id).Value = val }
	set(fName, s.Name)
	set(fMaxIter, strconv.Itoa(s.MaxIter))
	set(fWall, s.WallTime.String())
	set(fScheme, orDefault(string(s.Scheme), "hybrid"))
	set(fDetector, orDefault(string(s.Detector), "default"))
	set(fCores, strconv.Itoa(s.Cores))
	set(fAny, strconv.Itoa(s.Nodes.Any))
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// Spec returns the job as composed (with the jobs package's defaults
// filled in for what the form leaves open).
func (v *Model) Spec() jobs.Spec {
	s, _ := v.parseSpec()
	return s
}

// hierarchy returns the groups: the user's edit, or by cluster, at most
// jobs.MaxGroupSize workers per group, the first worker coordinating.
func (v *Model) hierarchy() []jobs.Group {
	if v.groups != nil {
		return v.groups
	}
	if v.plan != nil {
		return v.plan.Groups
	}
	var out []jobs.Group
	idx := map[string]int{} // cluster -> index of its open group
	for _, h := range v.chosen() {
		i, ok := idx[h.Cluster]
		if !ok || len(out[i].Workers) == jobs.MaxGroupSize {
			out = append(out, jobs.Group{Coordinator: h.Name})
			i = len(out) - 1
			idx[h.Cluster] = i
		}
		out[i].Workers = append(out[i].Workers, h.Name)
	}
	return out
}

// validate recomputes the problems and the pairs' routes. Every problem
// of the form is listed, each field's once, and its field marked.
func (v *Model) validate() {
	v.problems = v.problems[:0]
	add := func(format string, a ...any) { v.problems = append(v.problems, fmt.Sprintf(format, a...)) }
	s := v.checkForm(add)
	if len(v.unknown) > 0 {
		add("the job file names %s, not in the inventory: choose nodes again", strings.Join(v.unknown, ", "))
	}
	if v.selErr != "" {
		add("the job file's [nodes] selects no host (choose nodes again): %s", v.selErr)
	}
	nodes := v.chosen()
	picked := 0
	for _, ok := range v.picked {
		if ok {
			picked++
		}
	}
	switch {
	case picked == 0 && len(v.unknown) == 0 && v.selErr == "":
		add("no nodes chosen: pick hosts or clusters in the Nodes pane (→, space)")
	case v.take() > picked:
		add("not enough nodes: %d asked, %d chosen", v.take(), picked)
	}
	v.plan = nil
	var edges [][2]int
	if v.formProblems == 0 && len(nodes) > 0 {
		var err error
		if edges, err = v.defineTask(s); err != nil {
			msg := strings.TrimPrefix(err.Error(), s.App+": ")
			add("%s", msg)
			// A decomposition refused for one parameter names it first
			// ("blocks 3x1x1 make 3 blocks for 4 nodes", "items = 1 …"):
			// mark that field, as a value that does not parse is.
			if w := strings.Fields(msg); len(w) > 0 {
				if f := v.param(w[0]); f != nil {
					v.badFields[f.ID] = true
				}
			}
		}
	}
	if len(v.problems) == 0 && v.htable != nil {
		v.planJob(s)
	}
	v.pairs = v.pairs[:0]
	if v.plan != nil {
		for e, r := range v.plan.Routes {
			a, b := v.plan.Edges[e][0], v.plan.Edges[e][1]
			v.pairs = append(v.pairs, network.PairRoute{A: v.plan.Ranks[a], B: v.plan.Ranks[b], Route: r})
		}
		return
	}
	for _, e := range edges {
		p := network.PairRoute{A: nodes[e[0]].Name, B: nodes[e[1]].Name}
		if !v.probed(p.A) || !v.probed(p.B) {
			p.Err = errNotProbed // chosen when the run starts
		} else if p.Route, p.Err = v.htable.Route(p.A, p.B); p.Err != nil {
			add("unreachable pair %s ↔ %s: %v", p.A, p.B, p.Err)
		}
		v.pairs = append(v.pairs, p)
	}
}

// errNotProbed marks a pair whose nodes are not in the Htable yet
// (network.ErrNotProbed).
var errNotProbed = network.ErrNotProbed

// probed reports whether the Htable knows the node.
func (v *Model) probed(node string) bool {
	if v.htable == nil {
		return false
	}
	_, ok := v.htable.Node(node)
	return ok
}

// planJob asks the engine to plan the job on the nodes of the Htable, the
// same planning a run does: ranks, groups and the network of every pair.
// Nodes the Htable does not know yet (SSH hosts before their workers said
// hello) are planned when the run starts, so they are not an error here.
func (v *Model) planJob(s jobs.Spec) {
	for _, h := range v.chosen() {
		if _, ok := v.htable.Node(h.Name); !ok {
			return
		}
	}
	p, err := engine.PlanJob(s, v.inv, v.htable.Nodes())
	if err != nil {
		v.problems = append(v.problems, strings.TrimPrefix(err.Error(), "engine: "))
		return
	}
	v.plan = p
}

// update handles the composer's keys and messages, and predicts the job
// again when it changed (the Predict panel).
func (v Model) update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg.(type) {
	case predictTickMsg, predictedMsg:
		return v, v.updateForecast(msg)
	}
	v, cmd := v.handle(msg)
	return v, tea.Batch(cmd, v.schedulePrediction())
}

func (v Model) handle(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case results.LoadedMsg:
		v.SetResults(msg.Res) // the Predict panel rests on the runs
		return v, nil
	case RunEndedMsg:
		v.RunEnded(msg.Name, msg.How)
		return v, nil
	case SpecLoadedMsg:
		if msg.Err != nil {
			v.status = "load failed: " + msg.Err.Error()
			return v, nil
		}
		v.applySpec(msg.Spec)
		v.field(fFile).Value = msg.Path
		v.markClean()
		v.status = "loaded " + msg.Path
		switch {
		case v.selErr != "":
			v.status += ": [nodes] selects no host: " + v.selErr
		case len(v.unknown) == 0:
			v.status += fmt.Sprintf(": %s → %s", msg.Spec.Nodes.Describe(), count(len(v.chosen()), "node", "nodes"))
		}
	case SpecSavedMsg:
		v.status = "saved " + msg.Path
		if msg.Err != nil {
			v.status = "save failed: " + msg.Err.Error()
		} else {
			v.markClean()
		}
	case tea.KeyPressMsg:
		return v.key(msg)
	case tea.PasteMsg:
		if v.editing { // text pasted in the terminal goes where the cursor is
			var cmd tea.Cmd
			v.input, cmd = v.input.Update(msg)
			return v, cmd
		}
	case tea.MouseClickMsg:
		if !v.editing {
			v.click(msg.X, msg.Y)
		}
	}
	return v, nil
}

func (v Model) key(msg tea.KeyPressMsg) (Model, tea.Cmd) {
	if v.editing {
		return v, v.editKey(msg)
	}
	k := v.keyMap()
	switch {
	case key.Matches(msg, k.Pane):
		v.pane = (v.pane + 1) % paneCount
		if key.Matches(msg, k.prevPane) {
			v.pane = (v.pane + paneCount - 2) % paneCount // one back
		}
		return v, nil
	case key.Matches(msg, k.Save):
		return v, v.save()
	case key.Matches(msg, k.Load):
		load := LoadSpecMsg{Path: v.field(fFile).Value}
		if v.edited() {
			return v, msgCmd(LoadConfirmMsg{load})
		}
		return v, msgCmd(load)
	case key.Matches(msg, k.Start):
		return v, v.start()
	case key.Matches(msg, k.Copy):
		line, exact := jobs.CommandLine(v.Spec())
		v.status = "copied: " + line
		if !exact {
			v.status += " (its groups are in a job file only: ctrl+s saves one)"
		}
		return v, tea.SetClipboard(line)
	}
	if navigate(msg, v.common.Keys, &v.cursor[v.pane], v.paneLen(v.pane), v.common.BodyHeight()/2) {
		return v, nil
	}
	switch v.pane {
	case paneForm:
		return v.formKey(msg, k)
	case paneNodes:
		if key.Matches(msg, k.Toggle) {
			v.toggleNode()
		}
	case paneHierarchy:
		v.hierarchyKey(msg, k)
	case panePredict:
		if key.Matches(msg, k.Edit) {
			return v, v.startEdit(v.predictValue(v.cursor[panePredict]))
		}
	}
	return v, nil
}

// start validates and asks the root to start the run.
func (v *Model) start() tea.Cmd {
	v.validate()
	if len(v.problems) > 0 {
		v.status = "cannot start: " + v.problems[0]
		return nil
	}
	s, _ := v.parseSpec()
	v.status = "starting " + s.Name
	return msgCmd(StartRunMsg{Spec: s})
}

// RunEnded replaces the "starting" line once the run has ended: how it
// ended and where its report is.
func (v *Model) RunEnded(name, how string) {
	v.status = fmt.Sprintf("run %s %s: its report is in 4 Run, its times in 5 Results", name, how)
}

func (v Model) formKey(msg tea.KeyPressMsg, k composeKeyMap) (Model, tea.Cmd) {
	f := &v.fields[v.cursor[paneForm]]
	switch {
	case f.Kind == kindButton && key.Matches(msg, k.Edit):
		return v, v.start()
	case f.Kind == kindChoice && (key.Matches(msg, k.Edit) || key.Matches(msg, k.Cycle)):
		j := slices.Index(f.Options, f.Value)
		next := f.Options[(j+1)%len(f.Options)]
		switch f.ID {
		case fApp:
			v.cycleApp(next) // the form takes the new application's parameters
		case fScheme:
			f.Value = next
			if next == "sync" {
				v.field(fDetector).Value = "default" // sync runs use tokens
			}
		default:
			f.Value = next
		}
		v.validate()
	case f.Kind == kindText && key.Matches(msg, k.Edit):
		return v, v.startEdit(f.Value)
	}
	return v, nil
}

// capturing reports whether the composer is taking text input.
func (v Model) capturing() bool { return v.editing }
