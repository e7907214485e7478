package compose

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/jobs"
)

// fParam is the id of an application parameter's field: fParam+i for the
// application's i-th declared parameter.
const fParam = 100

// defaultApp is the default job's application (jobs.DefaultSpec).
var defaultApp = jobs.DefaultSpec().App

// formFields lays out the form: the fixed fields with, after the
// application, one field per parameter the application declares.
func formFields(params []gridapp.Param) []field {
	apps := gridapp.Names()
	if len(apps) == 0 {
		apps = []string{defaultApp}
	}
	out := []field{
		{ID: fName, Label: "Name", Kind: kindText},
		{ID: fApp, Label: "Application", Kind: kindChoice, Options: apps},
	}
	for i := range params {
		out = append(out, paramField(fParam+i, params[i]))
	}
	return append(out,
		field{ID: fMaxIter, Label: "Max iterations", Kind: kindText},
		field{ID: fWall, Label: "Wall time", Kind: kindText},
		field{ID: fScheme, Label: "Scheme", Kind: kindChoice, Options: []string{"sync", "async", "hybrid"}},
		field{ID: fDetector, Label: "Detector", Kind: kindChoice, Options: []string{"default", "tokens", "activity", "switch"}},
		field{ID: fCores, Label: "Cores per node", Kind: kindText},
		field{ID: fAny, Label: "Take N nodes", Kind: kindText},
		field{ID: fFile, Label: "Job file", Kind: kindText},
		field{ID: fStart, Label: "▶ Start run", Kind: kindButton},
	)
}

// paramField is the form field of a declared parameter: a choice for a
// boolean or a string with choices, text otherwise.
func paramField(id int, p gridapp.Param) field {
	f := field{ID: id, Label: p.Name, Kind: kindText, Value: p.Default, Param: &p}
	switch {
	case p.Kind == gridapp.Bool:
		f.Kind, f.Options = kindChoice, []string{"true", "false"}
	case len(p.Choices) > 0:
		f.Kind, f.Options = kindChoice, p.Choices
	}
	return f
}

// field returns the form field id.
func (v *Model) field(id int) *field {
	return &v.fields[v.row(id)]
}

// row returns the form row of field id (0 if the form has none).
func (v *Model) row(id int) int {
	return max(0, slices.IndexFunc(v.fields, func(f field) bool { return f.ID == id }))
}

// param returns the field of the application's parameter name, or nil.
func (v *Model) param(name string) *field {
	for i := range v.fields {
		if p := v.fields[i].Param; p != nil && p.Name == name {
			return &v.fields[i]
		}
	}
	return nil
}

// setApp lays the form out for app with the given parameter values (as
// typed; missing ones take the declared defaults), keeping the values of
// the other fields.
func (v *Model) setApp(app string, values map[string]string) {
	var params []gridapp.Param
	if a, err := gridapp.Lookup(app); err == nil {
		params = a.Params()
	}
	fields := formFields(params)
	for i := range fields {
		f := &fields[i]
		switch {
		case f.Param != nil:
			if s, ok := values[f.Param.Name]; ok {
				f.Value = s
			}
		case len(v.fields) > 0:
			f.Value = v.field(f.ID).Value
		}
	}
	fields[1].Value = app
	if !slices.Contains(fields[1].Options, app) {
		fields[1].Options = append(fields[1].Options, app) // a job file's unknown app, refused below
	}
	v.fields = fields
	v.cursor[paneForm] = min(v.cursor[paneForm], len(v.fields)-1)
}

// paramValues returns the parameter fields' values as typed.
func (v *Model) paramValues() map[string]string {
	out := map[string]string{}
	for _, f := range v.fields {
		if f.Param != nil {
			out[f.Param.Name] = strings.TrimSpace(f.Value)
		}
	}
	return out
}

// cycleApp switches the form to the next application, remembering the
// parameters typed for the one it leaves. A job name still automatic
// (empty, the jobs package's "default", or the name of the application
// left) follows the application; a name the user typed stays.
func (v *Model) cycleApp(next string) {
	if v.appValues == nil {
		v.appValues = map[string]map[string]string{}
	}
	left := v.field(fApp).Value
	v.appValues[left] = v.paramValues()
	v.setApp(next, v.appValues[next])
	v.followSupersteps(next)
	if name := strings.TrimSpace(v.field(fName).Value); name == "" || name == jobs.DefaultSpec().Name || name == left {
		v.field(fName).Value = next
	}
}

// followSupersteps sets the scheme to sync when the form cycles to a BSP
// program (as gridtui run does: a BSP job is refused under another), and
// gives the scheme and detector back when it cycles on to an application
// without supersteps.
func (v *Model) followSupersteps(app string) {
	a, err := gridapp.Lookup(app)
	_, bsp := a.(interface{ Supersteps() })
	switch {
	case err == nil && bsp && v.beforeBSP == nil:
		v.beforeBSP = &[2]string{v.field(fScheme).Value, v.field(fDetector).Value}
		v.field(fScheme).Value, v.field(fDetector).Value = "sync", "default"
	case !bsp && v.beforeBSP != nil:
		v.field(fScheme).Value, v.field(fDetector).Value = v.beforeBSP[0], v.beforeBSP[1]
		v.beforeBSP = nil
	}
}

// specParams returns the spec's parameters as the form shows them.
func specParams(s jobs.Spec) map[string]string {
	return maps.Clone(s.Params)
}

// parseParams puts the parameter fields into s and lists, through bad,
// each field whose value the application refuses, checked one by one as
// `gridtui run --param` checks them (gridapp.Parse), so that every bad
// field shows at once.
func (v *Model) parseParams(s *jobs.Spec, bad func(id int, format string, a ...any)) {
	vals := v.paramValues()
	for _, f := range v.fields {
		if f.Param == nil {
			continue
		}
		_, err := gridapp.Parse([]gridapp.Param{*f.Param}, map[string]string{f.Param.Name: vals[f.Param.Name]})
		if err != nil {
			msg := strings.TrimPrefix(err.Error(), gridapp.ErrParam.Error()+": "+f.Param.Name+": ")
			if !strings.Contains(msg, f.Param.Range()) {
				msg += " (want " + f.Param.Range() + ")"
			}
			bad(f.ID, "%s", msg)
		}
	}
	s.Params = vals
}

// keyField returns the form field a job-file key of jobs.Problem is about.
func (v *Model) keyField(key string) (int, bool) {
	if name, ok := strings.CutPrefix(key, "params."); ok {
		if f := v.param(name); f != nil {
			return f.ID, true
		}
		return 0, false
	}
	id, ok := fieldKeys[key]
	return id, ok
}

// about describes the focused parameter field: its help, kind, range and
// default, as `gridtui apps` lists them.
func (v *Model) about() string {
	f := v.fields[v.cursor[paneForm]]
	if f.Param == nil {
		return ""
	}
	p := f.Param
	return fmt.Sprintf("%s: %s (%s, %s, default %s)", p.Name, p.Help, p.Kind, p.Range(), p.DefaultText())
}

// defineTask asks the application to define the task on the chosen nodes
// (GRIDHPC Fig. 4, task definition), as planning a run does: its
// neighbour graph gives the job's pairs; its error is a problem of the job.
func (v *Model) defineTask(s jobs.Spec) ([][2]int, error) {
	app, vals, err := s.Application()
	if err != nil {
		return nil, err
	}
	hosts := v.chosen()
	nodes := make([]gridapp.Node, len(hosts))
	for i, h := range hosts {
		c := s.Cores
		if c == 0 {
			c = max(1, h.Cores)
		}
		nodes[i] = gridapp.Node{Name: h.Name, Cluster: h.Cluster, Cores: c}
	}
	t, err := defineSafely(app, vals, nodes)
	if err != nil {
		return nil, err
	}
	if len(t.Parts) != len(nodes) {
		return nil, fmt.Errorf("application %s defined %d parts for %d nodes", s.App, len(t.Parts), len(nodes))
	}
	if err := gridapp.CheckGraph(t.Parts); err != nil {
		return nil, fmt.Errorf("application %s: %w", s.App, err)
	}
	var edges [][2]int
	for a, p := range t.Parts {
		for _, b := range p.Neighbours {
			if a < b {
				edges = append(edges, [2]int{a, b})
			}
		}
	}
	return edges, nil
}

// errDefinePanic is wrapped by the error of a Define that panicked.
var errDefinePanic = errors.New("panic in Define")

func defineSafely(app gridapp.Application, vals gridapp.Values, nodes []gridapp.Node) (t gridapp.Task, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", errDefinePanic, r)
		}
	}()
	return app.Define(vals, nodes)
}
