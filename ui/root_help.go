package ui

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
)

// The help: the bar at the bottom and the full help (?) are drawn from the
// key map of the view in front, so they list the keys that act now.

// viewHelp is the key map of the page in front.
func (m Model) viewHelp() help.KeyMap { return m.pages[m.tab].Help() }

// paging reports whether the page in front shows a pager (a row's details,
// a report, a table).
func (m Model) paging() bool { return m.pages[m.tab].Paging() }

// helpBar is the bindings of the bar at the bottom: the view's enabled
// short help, then the tabs, help and quit.
func (m Model) helpBar() []key.Binding {
	k := m.common.Keys
	if m.confirm != nil {
		return []key.Binding{k.Yes, k.No}
	}
	var bs []key.Binding
	for _, b := range m.viewHelp().ShortHelp() {
		if b.Enabled() {
			bs = append(bs, b)
		}
	}
	return append(bs, k.NextTab, k.Help, k.Quit)
}

func (m Model) shortHelp() string {
	bs := m.helpBar()
	h := m.help
	h.SetWidth(0)
	// Drop the view's least important keys until "? help" and "q quit"
	// fit: they must be on every screen.
	for len(bs) > 2 && widthOf(h.ShortHelpView(bs)) > m.common.Width {
		bs = append(bs[:len(bs)-3], bs[len(bs)-2:]...)
	}
	return fitLine(h.ShortHelpView(bs), m.common.Width)
}

// fullHelp lays the view's and the global key groups out in columns,
// wrapping to more rows of columns when the terminal is narrow.
func (m Model) fullHelp() string {
	s := m.common.Styles
	groups := append(m.viewHelp().FullHelp(), m.common.Keys.GlobalHelp())
	var blocks [][]string
	for _, g := range groups {
		kw := 0
		for _, b := range g {
			if b.Enabled() {
				kw = max(kw, widthOf(b.Help().Key))
			}
		}
		var lines []string
		for _, b := range g {
			if b.Enabled() {
				lines = append(lines, s.Key.Render(padRight(b.Help().Key, kw))+"  "+b.Help().Desc)
			}
		}
		if len(lines) > 0 {
			blocks = append(blocks, lines)
		}
	}
	out := []string{s.Title.Render("Help — " + m.pages[m.tab].Title() + " (any key closes)"), ""}
	var row [][]string
	rowW := 0
	flush := func() {
		out = append(out, joinBlocks(row)...)
		out = append(out, "")
		row, rowW = nil, 0
	}
	for _, b := range blocks {
		bw := 0
		for _, l := range b {
			bw = max(bw, widthOf(l))
		}
		if rowW > 0 && rowW+bw+3 > m.common.Width {
			flush()
		}
		row = append(row, b)
		rowW += bw + 3
	}
	flush()
	return placeBody(m.common, strings.Join(out, "\n"))
}

// joinBlocks puts blocks of lines side by side, three spaces apart.
func joinBlocks(blocks [][]string) []string {
	h := 0
	widths := make([]int, len(blocks))
	for i, b := range blocks {
		h = max(h, len(b))
		for _, l := range b {
			widths[i] = max(widths[i], widthOf(l))
		}
	}
	out := make([]string, h)
	for r := 0; r < h; r++ {
		var b strings.Builder
		for i, blk := range blocks {
			l := ""
			if r < len(blk) {
				l = blk[r]
			}
			if i < len(blocks)-1 {
				l = padRight(l, widths[i]) + "   "
			}
			b.WriteString(l)
		}
		out[r] = b.String()
	}
	return out
}
