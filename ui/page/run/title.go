package run

import (
	"fmt"
	"path/filepath"
	"strings"
)

// titleLine is the Run view's header: the job, its application (compact:
// the size and the parameters set away from their defaults; only the
// application's name when the line would not fit), the run's state,
// elapsed time, σ, gain, scheme and detector, and node count.
func (v *Model) titleLine() string {
	s := v.common.Styles
	state := v.endState()
	gain, g := "–", v.snap.Gain
	if !v.running {
		g = v.finalGain // the report's figure, not the last estimate
	}
	if g > 0 {
		gain = fmt.Sprintf("%.2f×", g)
	}
	det := string(v.spec.Detector)
	if det == "" {
		det = "default"
	}
	rest := fmt.Sprintf(" · %s · %s · σ %s · gain %s · %s/%s · %s",
		state, clock(v.snap.Elapsed), sci(v.snap.GlobalSigma), gain, v.spec.Scheme, det, count(len(v.snap.Nodes), "node", "nodes"))
	app, full := v.appSummary()
	head := v.runHead(full)
	if cellWidth(head+rest) > v.common.Width {
		head = v.runHead(app)
	}
	return s.Title.Render(head) + rest
}

// runHead is "Run NAME · WHAT", or "Run WHAT" when the job is named after
// its application (Compose's automatic name).
func (v *Model) runHead(what string) string {
	name := v.spec.Name
	if name == "" {
		name = "job"
	}
	app, _ := v.appSummary()
	switch {
	case what == "":
		return "Run " + name
	case name == app:
		return "Run " + what
	}
	return "Run " + name + " · " + what
}

// appSummary names the run's application, alone and in compact form: its
// size n and every other parameter set away from its declared default, but
// for the tolerance (σ is beside it) — e.g. "poisson n=48 blocks=2x1x1". A
// path keeps only its last element.
func (v *Model) appSummary() (name, compact string) {
	app, vals, err := v.spec.Application()
	if err != nil {
		return v.spec.App, v.spec.App
	}
	raw := vals.Encode()
	parts := []string{v.spec.App}
	for _, p := range app.Params() {
		val := raw[p.Name]
		if p.Name == "eps" || (p.Name != "n" && val == p.Default) || val == "" {
			continue
		}
		if strings.ContainsRune(val, '/') {
			val = filepath.Base(val)
		}
		parts = append(parts, p.Name+"="+val)
	}
	return v.spec.App, strings.Join(parts, " ")
}
