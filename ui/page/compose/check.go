package compose

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/jobs"
)

// fieldKeys maps the job-file keys of jobs.Problem to the form's fixed
// fields (keyField adds the application's parameters).
var fieldKeys = map[string]int{
	"app": fApp, "max_iterations": fMaxIter, "wall_time": fWall,
	"scheme": fScheme, "detector": fDetector, "cores": fCores, "nodes.any": fAny,
}

// fieldProblem is what is wrong with one form field.
type fieldProblem struct {
	field int
	msg   string
}

// parseSpec builds the spec from the form (with the jobs package's
// defaults for what it leaves open) and lists the fields that do not parse,
// or hold a zero the defaults would silently replace.
func (v *Model) parseSpec() (jobs.Spec, []fieldProblem) {
	var ps []fieldProblem
	bad := func(i int, format string, a ...any) { ps = append(ps, fieldProblem{i, fmt.Sprintf(format, a...)}) }
	val := func(id int) string { return strings.TrimSpace(v.field(id).Value) }
	num := func(id int) int {
		n, err := strconv.Atoi(val(id))
		if err != nil {
			bad(id, "%q is not a whole number", v.field(id).Value)
		}
		return n
	}
	d := jobs.DefaultSpec()
	s := jobs.Spec{Name: val(fName), App: v.field(fApp).Value, Scheme: jobs.Scheme(v.field(fScheme).Value),
		Cores: num(fCores), MaxIter: num(fMaxIter)}
	if s.MaxIter == 0 && val(fMaxIter) == "0" {
		bad(fMaxIter, "0 must be at least 1 (the default is %d)", d.MaxIter)
	}
	v.parseParams(&s, bad)
	if det := v.field(fDetector).Value; det != "default" {
		s.Detector = jobs.Detector(det)
	}
	wall, err := time.ParseDuration(val(fWall))
	switch {
	case err != nil:
		bad(fWall, "%q is not a duration (e.g. 5m, 90s)", v.field(fWall).Value)
	case wall == 0:
		bad(fWall, "0 must be positive (the default is %s)", d.WallTime)
	}
	s.WallTime = wall
	take := num(fAny)
	if take < 0 {
		bad(fAny, "%d must not be negative (0 takes every chosen node)", take)
	}
	s.Nodes = v.selection(take)
	s.Groups = slices.Clone(v.groups)
	s.Output = v.output
	if v.wd != "" {
		// The submitter makes a relative file parameter absolute (its help
		// says so), as gridtui run and a job file's loader do.
		s = s.AbsPaths(v.wd)
	}
	return s.WithDefaults(), ps
}

// checkForm lists, through add, every problem of the form: the fields
// that do not parse, then what jobs.Spec.Problems finds in the rest, each
// field once and prefixed with its label; it marks those fields and
// returns the spec.
func (v *Model) checkForm(add func(string, ...any)) jobs.Spec {
	v.badFields = map[int]bool{}
	s, fps := v.parseSpec()
	for _, p := range fps {
		if !v.badFields[p.field] {
			v.badFields[p.field] = true
			add("%s: %s", v.field(p.field).Label, p.msg)
		}
	}
	for _, p := range s.Problems() {
		f, ok := v.keyField(p.Key)
		switch {
		case !ok:
			add("%s", p.Msg)
		case !v.badFields[f]:
			v.badFields[f] = true
			add("%s: %s", v.field(f).Label, p.Msg)
		}
	}
	v.formProblems = len(v.problems)
	return s
}

// save asks the root to write the job file. A job its own file would be
// refused for (jobs.LoadSpec, gridtui run --job) is not written: the
// status says why, naming every problem. A job valid as a file that cannot
// run as composed here (nodes, routes) is written once the user confirms.
func (v *Model) save() tea.Cmd {
	v.validate()
	s, _ := v.parseSpec()
	msg := SaveSpecMsg{Path: strings.TrimSpace(v.field(fFile).Value), Spec: s}
	switch {
	case v.formProblems > 0:
		v.status = fmt.Sprintf("not saved: %s would be refused when loaded: %s",
			msg.Path, strings.Join(v.problems[:v.formProblems], "; "))
		return nil
	case len(v.problems) > 0:
		return msgCmd(SaveConfirmMsg{SaveSpecMsg: msg, Problems: slices.Clone(v.problems)})
	}
	return msgCmd(msg)
}
