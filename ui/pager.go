package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// pager shows a text too long or too wide for its place, whole: a list
// row's details (k9s's describe), a run's report, a results table. It
// wraps prose to the width and keeps the lines of a table (columns set
// apart by two spaces or more) whole, so that the columns stay aligned:
// ←/→ scroll those sideways, as less -S does; the navigation keys scroll
// up and down. The text is plain,
// so what the terminal selects is what the row holds; Copy also puts it on
// the clipboard (OSC 52), and the console releases the mouse while a pager
// is open so that the terminal's own selection works.
type pager struct {
	open   bool
	title  string
	text   string
	noWrap bool
	scroll int
	// shift is how many cells the wide lines are scrolled sideways.
	shift int
}

// newPager returns an open pager of text under a title.
func newPager(title, text string) pager {
	return pager{open: true, title: title, text: strings.TrimRight(text, "\n")}
}

// pagerKeyMap is a pager's part of a view's key map.
type pagerKeyMap struct {
	Up, Down, PageUp, PageDown, Home, End, Close, Copy key.Binding
	Left, Right                                        key.Binding
}

// keyMap returns the pager's bindings; the moves are enabled only when the
// text does not fit in h lines of width w.
func (p *pager) keyMap(k KeyMap, w, h int) pagerKeyMap {
	lines := p.lines(w)
	long := len(lines) > p.textHeight(h)
	wide := p.widest(lines) > w
	return pagerKeyMap{
		Left: enabled(k.ScrollLeft, wide && p.shift > 0), Right: enabled(k.ScrollRight, wide && p.shift < p.widest(lines)-w),
		Up: enabled(k.Up, long), Down: enabled(k.Down, long),
		PageUp: enabled(k.PageUp, long), PageDown: enabled(k.PageDown, long),
		Home: enabled(k.Home, long), End: enabled(k.End, long),
		Close: k.Close, Copy: k.Copy,
	}
}

// ShortHelp implements help.KeyMap.
func (pk pagerKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{pk.Close, pk.Copy, pk.Down, pk.PageDown, pk.Right, pk.Left}
}

// FullHelp implements help.KeyMap.
func (pk pagerKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{pk.Close, pk.Copy, pk.Left, pk.Right}, {pk.Up, pk.Down, pk.PageUp, pk.PageDown, pk.Home, pk.End}}
}

// update scrolls, closes or copies; it reports whether the key was the
// pager's, and returns the clipboard command for Copy.
func (p *pager) update(msg tea.KeyPressMsg, k KeyMap, w, h int) (bool, tea.Cmd) {
	pk := p.keyMap(k, w, h)
	switch {
	case key.Matches(msg, pk.Close):
		p.open = false
		return true, nil
	case key.Matches(msg, pk.Copy):
		text := ansi.Strip(p.text)
		lines := strings.Count(strings.TrimRight(text, "\n"), "\n") + 1
		return true, tea.Batch(tea.SetClipboard(text), func() tea.Msg { return copiedMsg{lines} })
	case key.Matches(msg, pk.Left):
		p.shift = max(0, p.shift-w/2)
		return true, nil
	case key.Matches(msg, pk.Right):
		p.shift = min(p.shift+w/2, p.widest(p.lines(w))-w)
		return true, nil
	}
	lines := len(p.lines(w))
	th := p.textHeight(h)
	// The cursor of a pager is its first line; its last place shows the
	// last page.
	nk := KeyMap{Up: pk.Up, Down: pk.Down, PageUp: pk.PageUp, PageDown: pk.PageDown, Home: pk.Home, End: pk.End}
	if !navigate(msg, nk, &p.scroll, max(1, lines-th+1), th) {
		return false, nil
	}
	return true, nil
}

// textHeight is the number of text lines in h lines (the title and the
// footer take two).
func (p *pager) textHeight(h int) int { return max(1, h-2) }

// lines is the text laid out at width w.
func (p *pager) lines(w int) []string {
	var out []string
	for _, l := range strings.Split(p.text, "\n") {
		if p.noWrap || cellWidth(l) <= w || tabular(l) {
			out = append(out, l)
			continue
		}
		// At spaces, keeping the spaces between words (a table's columns
		// stay apart); a word wider than the line is cut.
		for _, wl := range strings.Split(ansi.Wrap(l, w, ""), "\n") {
			out = append(out, strings.TrimRight(wl, " "))
		}
	}
	return out
}

// tabular reports a line of a table: two cells set apart by two spaces or
// more after its indentation.
func tabular(l string) bool {
	return strings.Contains(strings.TrimSpace(l), "  ")
}

// widest is the width of the widest line.
func (p *pager) widest(lines []string) int {
	w := 0
	for _, l := range lines {
		w = max(w, cellWidth(l))
	}
	return w
}

// render draws the title, the visible lines and a footer in exactly h
// lines of width w.
func (p *pager) render(s *Styles, w, h int) []string {
	lines := p.lines(w)
	th := p.textHeight(h)
	p.scroll = max(0, min(p.scroll, len(lines)-th))
	p.shift = max(0, min(p.shift, p.widest(lines)-w)) // the terminal may have grown
	out := []string{s.Title.Render(fitLine(p.title, w))}
	body := clipWindow(lines, p.scroll, th)
	for _, l := range body {
		if p.shift > 0 {
			l = ansi.Cut(l, p.shift, p.shift+w)
		}
		out = append(out, fitLine(l, w))
	}
	for len(out) < h-1 {
		out = append(out, "")
	}
	var foot []string // the keys are in the help bar
	if len(lines) > th {
		foot = append(foot, fmt.Sprintf("lines %d–%d of %d", p.scroll+1, p.scroll+len(body), len(lines)))
	}
	if wide := p.widest(lines); wide > w {
		foot = append(foot, fmt.Sprintf("columns %d–%d of %d (←/→)", p.shift+1, min(wide, p.shift+w), wide))
	}
	return append(out[:max(1, h-1)], s.Dim.Render(fitLine(strings.Join(foot, " · "), w)))
}
