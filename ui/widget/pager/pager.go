package pager

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gridtui/gridtui/ui/widget/list"
	"github.com/gridtui/gridtui/ui/widget/text"
)

// Model shows a text too long or too wide for its place, whole: a list
// row's details (k9s's describe), a run's report, a results table. It
// wraps prose to the width and keeps the lines of a table (columns set
// apart by two spaces or more) whole, so that the columns stay aligned:
// ←/→ scroll those sideways, as less -S does; the navigation keys scroll
// up and down. The text is plain,
// so what the terminal selects is what the row holds; Copy also puts it on
// the clipboard (OSC 52), and the console releases the mouse while a pager
// is open so that the terminal's own selection works.
type Model struct {
	KeyMap KeyMap
	Styles Styles
	// Open is set while the pager is shown; Close clears it.
	Open  bool
	Title string
	Text  string
	// NoWrap keeps every line whole (a table), scrolled sideways.
	NoWrap bool
	// Scroll is the first line shown.
	Scroll int
	// Shift is how many cells the wide lines are scrolled sideways.
	Shift int
}

// KeyMap is the pager's key map.
type KeyMap struct {
	Up, Down, PageUp, PageDown, Home, End key.Binding
	// Left and Right scroll wide lines sideways.
	Left, Right key.Binding
	// Close leaves the pager, Copy puts its text on the clipboard.
	Close, Copy key.Binding
}

// DefaultKeyMap returns the pager's default keys.
func DefaultKeyMap() KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	nav := list.DefaultKeyMap()
	return KeyMap{Up: nav.Up, Down: nav.Down, PageUp: nav.PageUp, PageDown: nav.PageDown, Home: nav.Home, End: nav.End,
		Left: b("←", "scroll left", "left"), Right: b("→", "scroll right", "right"),
		Close: b("esc", "back", "esc"), Copy: b("y", "copy", "y")}
}

// Styles are the pager's title and footer styles.
type Styles struct {
	Title, Dim lipgloss.Style
}

// DefaultStyles returns the pager's default styles.
func DefaultStyles() Styles {
	return Styles{Title: lipgloss.NewStyle().Bold(true), Dim: lipgloss.NewStyle().Foreground(lipgloss.Color("244"))}
}

// CopiedMsg reports that the pager's text went to the clipboard (OSC 52,
// which has no answer: the console says what was sent).
type CopiedMsg struct{ Lines int }

// New returns an open pager of text under a title, with the default keys
// and styles.
func New(title, text string) Model {
	return Model{KeyMap: DefaultKeyMap(), Styles: DefaultStyles(), Open: true, Title: title, Text: strings.TrimRight(text, "\n")}
}

// Bindings is the pager's part of a page's key map, enabled for the text
// and the room it has.
type Bindings struct {
	Up, Down, PageUp, PageDown, Home, End, Close, Copy key.Binding
	Left, Right                                        key.Binding
}

// Bindings returns the pager's bindings; the moves are enabled only when the
// text does not fit in h lines of width w.
func (p *Model) Bindings(w, h int) Bindings {
	k := p.KeyMap
	lines := p.lines(w)
	long := len(lines) > p.textHeight(h)
	wide := p.widest(lines) > w
	return Bindings{
		Left: enabled(k.Left, wide && p.Shift > 0), Right: enabled(k.Right, wide && p.Shift < p.widest(lines)-w),
		Up: enabled(k.Up, long), Down: enabled(k.Down, long),
		PageUp: enabled(k.PageUp, long), PageDown: enabled(k.PageDown, long),
		Home: enabled(k.Home, long), End: enabled(k.End, long),
		Close: k.Close, Copy: k.Copy,
	}
}

// ShortHelp implements help.KeyMap.
func (pk Bindings) ShortHelp() []key.Binding {
	return []key.Binding{pk.Close, pk.Copy, pk.Down, pk.PageDown, pk.Right, pk.Left}
}

// FullHelp implements help.KeyMap.
func (pk Bindings) FullHelp() [][]key.Binding {
	return [][]key.Binding{{pk.Close, pk.Copy, pk.Left, pk.Right}, {pk.Up, pk.Down, pk.PageUp, pk.PageDown, pk.Home, pk.End}}
}

// Update scrolls, closes or copies a pager of h lines of width w; it
// reports whether the key was the pager's, and returns the clipboard
// command for Copy (then a CopiedMsg).
func (p *Model) Update(msg tea.KeyPressMsg, w, h int) (bool, tea.Cmd) {
	pk := p.Bindings(w, h)
	switch {
	case key.Matches(msg, pk.Close):
		p.Open = false
		return true, nil
	case key.Matches(msg, pk.Copy):
		text := ansi.Strip(p.Text)
		lines := strings.Count(strings.TrimRight(text, "\n"), "\n") + 1
		return true, tea.Batch(tea.SetClipboard(text), func() tea.Msg { return CopiedMsg{lines} })
	case key.Matches(msg, pk.Left):
		p.Shift = max(0, p.Shift-w/2)
		return true, nil
	case key.Matches(msg, pk.Right):
		p.Shift = min(p.Shift+w/2, p.widest(p.lines(w))-w)
		return true, nil
	}
	lines := len(p.lines(w))
	th := p.textHeight(h)
	// The cursor of a pager is its first line; its last place shows the
	// last page.
	nk := list.NavKeyMap{Up: pk.Up, Down: pk.Down, PageUp: pk.PageUp, PageDown: pk.PageDown, Home: pk.Home, End: pk.End}
	if !list.Navigate(msg, nk, &p.Scroll, max(1, lines-th+1), th) {
		return false, nil
	}
	return true, nil
}

// textHeight is the number of text lines in h lines (the title and the
// footer take two).
func (p *Model) textHeight(h int) int { return max(1, h-2) }

// lines is the text laid out at width w.
func (p *Model) lines(w int) []string {
	var out []string
	for _, l := range strings.Split(p.Text, "\n") {
		if p.NoWrap || text.Width(l) <= w || tabular(l) {
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
func (p *Model) widest(lines []string) int {
	w := 0
	for _, l := range lines {
		w = max(w, text.Width(l))
	}
	return w
}

// Render draws the title, the visible lines and a footer in exactly h
// lines of width w.
func (p *Model) Render(w, h int) []string {
	s := p.Styles
	lines := p.lines(w)
	th := p.textHeight(h)
	p.Scroll = max(0, min(p.Scroll, len(lines)-th))
	p.Shift = max(0, min(p.Shift, p.widest(lines)-w)) // the terminal may have grown
	out := []string{s.Title.Render(text.Fit(p.Title, w))}
	body := lines[min(p.Scroll, len(lines)):min(p.Scroll+th, len(lines))]
	for _, l := range body {
		if p.Shift > 0 {
			l = ansi.Cut(l, p.Shift, p.Shift+w)
		}
		out = append(out, text.Fit(l, w))
	}
	for len(out) < h-1 {
		out = append(out, "")
	}
	var foot []string // the keys are in the help bar
	if len(lines) > th {
		foot = append(foot, fmt.Sprintf("lines %d–%d of %d", p.Scroll+1, p.Scroll+len(body), len(lines)))
	}
	if wide := p.widest(lines); wide > w {
		foot = append(foot, fmt.Sprintf("columns %d–%d of %d (←/→)", p.Shift+1, min(wide, p.Shift+w), wide))
	}
	return append(out[:max(1, h-1)], s.Dim.Render(text.Fit(strings.Join(foot, " · "), w)))
}

func enabled(b key.Binding, on bool) key.Binding {
	b.SetEnabled(on)
	return b
}
