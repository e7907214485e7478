package compose

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/predict"
)

// predictValueColumn is where a Predict row's value starts: two spaces, the
// label padded to 11 cells, a space (predictRowLine).
const predictValueColumn = 14

// predictLines renders the Predict panel in w×h: the editable network and
// node rows, the schemes side by side (time, iterations, idle, gain; the
// job's scheme marked), the schemes it cannot predict and why, and the
// traced runs it rests on. With no usable trace it says what to run first.
func (v Model) predictLines(w, h int) []string {
	s := v.common.Styles
	note := " (replay of traced runs)"
	if v.fc.req.bsp {
		note = " (BSP: W + h·g + l per superstep)"
	}
	switch {
	case v.fc.pending:
		note = " (predicting…)"
	case (v.fc.out != nil || v.fc.bspOut != nil) && v.fc.took > 0:
		note = note[:len(note)-1] + ", " + secs(v.fc.took.Seconds()) + ")"
	}
	out := v.paneTitle(panePredict, "Predict", note)
	for i, name := range v.predictRows() {
		out = append(out, v.predictRowLine(i, name, w))
	}
	switch {
	case v.fc.why != "":
		out = append(out, wrapLines(s.Dim, v.fc.why, w)...)
	case v.fc.err != nil && noTrace(v.fc.err):
		msg := strings.TrimPrefix(v.fc.err.Error(), "predict: ")
		out = append(out, wrapLines(s.Warn, strings.ToUpper(msg[:1])+msg[1:], w)...)
		hint := "Here: run this job once with Scheme ‹sync› (r), then with the other schemes to predict them too; the panel predicts from their traces."
		if v.fc.req.bsp {
			hint = "Here: run this job once (r) on these nodes; the panel predicts from its supersteps and the g and l of gridtui bench bsp."
		}
		out = append(out, wrapLines(s.Dim, hint, w)...)
	case v.fc.err != nil:
		out = append(out, wrapLines(s.Err, "no prediction: "+strings.TrimPrefix(v.fc.err.Error(), "predict: "), w)...)
	case v.fc.out != nil:
		out = append(out, v.outlookLines(v.fc.out, w)...)
	case v.fc.bspOut != nil:
		out = append(out, v.bspLines(v.fc.bspOut, w)...)
	default:
		out = append(out, s.Dim.Render("  predicting…"))
	}
	return clipWindow(out, 0, h)
}

// wrapLines wraps text to w cells, indented by two, and styles each line
// (a row holds no newline).
func wrapLines(st lipgloss.Style, text string, w int) []string {
	lines := strings.Split(wrap(text, max(1, w-2)), "\n")
	for i, l := range lines {
		lines[i] = "  " + st.Render(l)
	}
	return lines
}

// predictRowLine renders one editable row: a network's figures and where
// they come from, or the node count.
func (v Model) predictRowLine(i int, name string, w int) string {
	s := v.common.Styles
	var line string
	switch {
	case v.editing && v.pane == panePredict && i == v.cursor[panePredict]:
		label := name
		if label == "" {
			label = "nodes"
		}
		line = "  " + padRight(label, 11) + " " + v.input.View()
	case name == "":
		val := v.predictValue(i)
		src := "the job's"
		if v.fc.nodes != "" {
			src = "what-if"
		}
		line = "  " + padRight("nodes", 11) + " " + val + s.Dim.Render(" ("+src+")")
	default:
		n := v.fc.out.Platform.Networks[name]
		src := n.Source
		if src == "set" {
			src = "what-if"
		}
		if n.LatencySource != "" {
			src += ", latency: " + n.LatencySource
		}
		line = "  " + padRight(name, 11) + " " + fmt.Sprintf("%s, %s", rate(n.Bandwidth), n.Latency) + s.Dim.Render(" ("+src+")")
	}
	if v.pane == panePredict && i == v.cursor[panePredict] && !v.editing {
		line = s.Selected.Render(padRight("›"+line[1:], w))
	}
	return line
}

// rate writes a bandwidth in bits per second.
func rate(bytesPerSec float64) string {
	bits := bytesPerSec * 8
	switch {
	case bits >= 1e9:
		return fmt.Sprintf("%.3g Gbit/s", bits/1e9)
	case bits >= 1e6:
		return fmt.Sprintf("%.3g Mbit/s", bits/1e6)
	}
	return fmt.Sprintf("%.3g kbit/s", bits/1e3)
}

// outlookLines are the schemes side by side and what they rest on.
func (v Model) outlookLines(o *predict.Outlook, w int) []string {
	s := v.common.Styles
	job := jobs.Scheme(v.field(fScheme).Value)
	byScheme := map[jobs.Scheme]predict.Prediction{}
	for _, p := range o.Predictions {
		byScheme[p.Scheme] = p
	}
	col := max(8, min(12, (w-14)/3))
	cell := func(txt string) string { return padRight(fitLine(txt, col-1), col) }
	head := padRight("", 13)
	for _, sc := range predict.AllSchemes {
		name := string(sc)
		if sc == job {
			name = "▸" + name
		}
		head += cell(name)
	}
	rows := []struct {
		label string
		val   func(p predict.Prediction) string
	}{
		{"time", func(p predict.Prediction) string { return secs(p.Seconds) }},
		{"iterations", func(p predict.Prediction) string {
			if p.MinIterations == p.MaxIterations {
				return fmt.Sprint(p.MaxIterations)
			}
			return fmt.Sprintf("%d–%d", p.MinIterations, p.MaxIterations)
		}},
		{"idle/node", func(p predict.Prediction) string { return secs(p.IdleSeconds) }},
		{"gain", func(p predict.Prediction) string { return fmt.Sprintf("%.2f", p.Gain) }},
	}
	out := []string{""}
	if len(o.Predictions) > 0 {
		out = append(out, s.Title.Render(fitLine(head, w)))
	} else {
		rows = nil // no scheme predicted: only the reasons
	}
	for _, r := range rows {
		line := "  " + padRight(r.label, 11)
		for _, sc := range predict.AllSchemes {
			p, ok := byScheme[sc]
			txt := "–"
			if ok {
				txt = r.val(p)
			}
			line += cell(txt)
		}
		out = append(out, fitLine(line, w))
	}
	if vd := o.Verdict; vd != nil {
		txt := fmt.Sprintf("%s, %s", vd.Fastest, vd.Lead())
		if len(vd.Close) > 0 {
			names := []string{string(vd.Fastest)}
			for _, sc := range vd.Close {
				names = append(names, string(sc))
			}
			txt = fmt.Sprintf("%s: within %.0f %%, too close to call", strings.Join(names, " ≈ "), 100*predict.CloseCall)
		}
		out = append(out, fitLine("  "+padRight("fastest", 11)+txt, w))
	}
	for _, sc := range predict.AllSchemes {
		if why, ok := o.Unavailable[sc]; ok {
			out = append(out, wrapLines(s.Dim, fmt.Sprintf("%s: no prediction: %s", sc, formWords(why)), w)...)
		}
		if c, ok := o.Cautions[sc]; ok {
			out = append(out, wrapLines(s.Warn, fmt.Sprintf("%s: caution: %s", sc, c), w)...)
		}
	}
	out = append(out, fitLine(fmt.Sprintf("  rests on %s of %s:", count(len(o.Model.Sources), "traced run", "traced runs"),
		o.Problem.Describe()), w))
	for _, g := range predict.GroupSources(o.Model.Sources) {
		wall := span(secs(g.MinWall), secs(g.MaxWall))
		iters := span(fmt.Sprintf("%.0f", g.MinIterations), fmt.Sprintf("%.0f", g.MaxIterations))
		out = append(out, s.Dim.Render(fitLine(fmt.Sprintf("    %s, %s: %s, %s, %s iterations", g.Scheme,
			count(g.Nodes, "node", "nodes"), count(g.Runs, "run", "runs"), wall, iters), w)))
	}
	return out
}

// span writes a range lo–hi as written, or lo alone when both read the
// same.
func span(lo, hi string) string {
	if lo == hi {
		return lo
	}
	return lo + "–" + hi
}

// schemeFlag is a --scheme flag in predict's advice.
var schemeFlag = regexp.MustCompile(`--scheme (sync|async|hybrid)`)

// formWords puts predict's advice in the form's words: "run it once with
// --scheme sync" reads "run it once with Scheme ‹sync› (r)", the field to
// set here and the key that runs it.
func formWords(why string) string {
	return schemeFlag.ReplaceAllString(why, "Scheme ‹$1› (r)")
}

// secs writes seconds as a rounded duration.
func secs(x float64) string {
	d := time.Duration(x * float64(time.Second))
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(time.Microsecond).String()
}
