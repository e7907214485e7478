package list

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gridtui/gridtui/ui/widget/text"
)

// Column is one column of a list: a title and a width (0 = share the space
// left by the fixed columns).
type Column struct {
	Title string
	Width int
	Right bool
}

// Tone is the colour-independent tone of a list row.
type Tone uint8

const (
	ToneNormal Tone = iota
	ToneDim
	ToneErr
	ToneOK
	ToneWarn
)

// Row is one row of a list or tree. Level is the tree depth; only leaf
// rows take part in sorting (sorting flattens the tree).
type Row struct {
	Key   string
	Cells []string
	Level int
	Leaf  bool
	Tone  Tone
}

// Model is the filterable, sortable, scrolling table (a tree while
// unsorted) every page uses. It keeps all rows but renders only the visible
// window, so a list of thousands of rows costs no more per frame than a
// screenful. Its keys and styles are its own (KeyMap, Styles): the console
// sets them from its key map and styles.
type Model struct {
	KeyMap    KeyMap
	Styles    Styles
	cols      []Column
	rows      []Row
	visible   []int
	cursor    int // index into visible
	offset    int // first visible row on screen
	filter    string
	filtering bool
	sortCol   int // -1: natural (tree) order
	desc      bool
	// drawn is where the last frame drew the rows, for mouse clicks; a
	// pointer, so that the copies of a view (Update and View work on
	// copies) share it.
	drawn *drawnRows
}

// drawnRows is where a list's rows were drawn in the body area: h rows
// from (x, y), w cells wide, the first showing visible row first.
type drawnRows struct {
	x, y, w, h int
	first      int
}

// New returns a list of the columns, with the default keys and styles.
func New(cols []Column) Model {
	return Model{KeyMap: DefaultKeyMap(), Styles: DefaultStyles(), cols: cols, sortCol: -1, drawn: &drawnRows{}}
}

// Click moves the cursor to the row drawn at (x, y) of the body area; it
// reports whether a row was there.
func (l *Model) Click(x, y int) bool {
	d := l.drawn
	if d == nil || x < d.x || x >= d.x+d.w || y < d.y || y >= d.y+d.h {
		return false
	}
	i := d.first + y - d.y
	if i >= len(l.visible) {
		return false
	}
	l.cursor = i
	return true
}

// SetRows replaces the rows, keeping the cursor on the same key if present.
func (l *Model) SetRows(rows []Row) {
	sel, hadSel := l.Selected()
	l.rows = rows
	l.refresh()
	if hadSel {
		for i, idx := range l.visible {
			if l.rows[idx].Key == sel.Key {
				l.cursor = i
				return
			}
		}
	}
	l.clampCursor()
}

// Selected returns the row under the cursor.
func (l *Model) Selected() (Row, bool) {
	if l.cursor < 0 || l.cursor >= len(l.visible) {
		return Row{}, false
	}
	return l.rows[l.visible[l.cursor]], true
}

func (l *Model) clampCursor() {
	if l.cursor >= len(l.visible) {
		l.cursor = len(l.visible) - 1
	}
	if l.cursor < 0 {
		l.cursor = 0
	}
}

// refresh recomputes the visible rows from the filter and the sort column.
func (l *Model) refresh() {
	l.visible = l.visible[:0]
	f := strings.ToLower(l.filter)
	match := func(r Row) bool {
		if f == "" {
			return true
		}
		for _, c := range r.Cells {
			if strings.Contains(strings.ToLower(ansi.Strip(c)), f) {
				return true
			}
		}
		return false
	}
	if l.sortCol >= 0 {
		for i, r := range l.rows {
			if r.Leaf && match(r) {
				l.visible = append(l.visible, i)
			}
		}
		col, desc := l.sortCol, l.desc
		slices.SortStableFunc(l.visible, func(a, b int) int {
			c := compareCells(cellAt(l.rows[a], col), cellAt(l.rows[b], col))
			if desc {
				return -c
			}
			return c
		})
	} else {
		l.visible = append(l.visible, treeFilter(l.rows, match)...)
	}
	l.clampCursor()
}

// treeFilter keeps the rows that match, their ancestors and descendants.
func treeFilter(rows []Row, match func(Row) bool) []int {
	keep := make([]bool, len(rows))
	var stack []int // indices of the ancestors of the current row
	for i, r := range rows {
		for len(stack) > 0 && rows[stack[len(stack)-1]].Level >= r.Level {
			stack = stack[:len(stack)-1]
		}
		m := match(r)
		for _, a := range stack {
			if keep[a] && match(rows[a]) {
				m = true // a matching ancestor keeps its subtree
			}
		}
		if m {
			keep[i] = true
			for _, a := range stack {
				keep[a] = true
			}
		}
		stack = append(stack, i)
	}
	out := make([]int, 0, len(rows))
	for i, k := range keep {
		if k {
			out = append(out, i)
		}
	}
	return out
}

func cellAt(r Row, col int) string {
	if col < len(r.Cells) {
		return ansi.Strip(r.Cells[col])
	}
	return ""
}

// compareCells orders numbers numerically (a leading number is enough, so
// "12 %" and "3.5 ms" sort right) and everything else as text.
func compareCells(a, b string) int {
	fa, errA := strconv.ParseFloat(leadingNumber(a), 64)
	fb, errB := strconv.ParseFloat(leadingNumber(b), 64)
	if errA == nil && errB == nil {
		return cmp.Compare(fa, fb)
	}
	return strings.Compare(strings.ToLower(a), strings.ToLower(b))
}

func leadingNumber(s string) string {
	s = strings.TrimSpace(s)
	end := 0
	for end < len(s) && strings.IndexByte("0123456789.-+eE", s[end]) >= 0 {
		end++
	}
	return s[:end]
}

// Update handles list navigation, filtering and sorting for a list of
// height lines. It reports whether the key was consumed. While the filter is
// being typed every key is consumed.
func (l *Model) Update(msg tea.KeyPressMsg, height int) bool {
	k := l.KeyMap
	if l.filtering {
		switch {
		case key.Matches(msg, k.Accept):
			l.filtering = false
		case key.Matches(msg, k.Cancel):
			l.filtering, l.filter = false, ""
		case key.Matches(msg, k.DeleteChar):
			if r := []rune(l.filter); len(r) > 0 {
				l.filter = string(r[:len(r)-1])
			}
		default:
			if msg.Text != "" {
				l.filter += msg.Text
			}
		}
		l.refresh()
		return true
	}
	if Navigate(msg, k.Nav(), &l.cursor, len(l.visible), height-1) {
		return true
	}
	lk := l.Bindings()
	switch {
	case key.Matches(msg, lk.Filter):
		l.filtering = true
	case key.Matches(msg, lk.Sort):
		l.sortCol++
		if l.sortCol >= len(l.cols) {
			l.sortCol = -1
		}
		l.refresh()
	case key.Matches(msg, lk.Reverse):
		l.desc = !l.desc
		l.refresh()
	case key.Matches(msg, lk.ClearFilter):
		l.filter = ""
		l.refresh()
	default:
		return false
	}
	l.clampCursor()
	return true
}

// Navigate moves a cursor over n items with the navigation keys (a page
// is page items); it reports whether the key was one of them. Panes and
// pages of text that are not lists move with it too.
func Navigate(msg tea.KeyPressMsg, k NavKeyMap, cursor *int, n, page int) bool {
	page = max(1, page)
	switch {
	case key.Matches(msg, k.Up):
		*cursor--
	case key.Matches(msg, k.Down):
		*cursor++
	case key.Matches(msg, k.PageUp):
		*cursor -= page
	case key.Matches(msg, k.PageDown):
		*cursor += page
	case key.Matches(msg, k.Home):
		*cursor = 0
	case key.Matches(msg, k.End):
		*cursor = n - 1
	default:
		return false
	}
	*cursor = max(0, min(*cursor, n-1))
	return true
}

// widths resolves the column widths for a total width.
func (l *Model) widths(total int) []int {
	w := make([]int, len(l.cols))
	fixed, flex := 0, 0
	for i, c := range l.cols {
		w[i] = c.Width
		fixed += c.Width + 1
		if c.Width == 0 {
			flex++
		}
	}
	free := total - 2 - fixed
	for i, c := range l.cols {
		if c.Width == 0 {
			w[i] = max(4, free/flex)
		}
	}
	return w
}

// Render draws the header, the visible window of rows and a footer line in
// exactly height lines of the given width, at (x, y) of the body area (where
// a click finds its rows).
func (l *Model) Render(x, y, width, height int) string {
	s := l.Styles
	var b strings.Builder
	w := l.widths(width)
	rowsH := max(1, height-2)
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if l.cursor >= l.offset+rowsH {
		l.offset = l.cursor - rowsH + 1
	}
	l.offset = max(0, min(l.offset, len(l.visible)-rowsH))
	if l.drawn != nil {
		*l.drawn = drawnRows{x: x, y: y + 1, w: width, h: rowsH, first: l.offset}
	}
	hdr := make([]string, len(l.cols))
	for i, c := range l.cols {
		t := c.Title
		if i == l.sortCol {
			// The mark must survive a narrow column: shorten the title
			// instead ("Core▲", not "Core…" which hides the sort).
			if text.Width(t)+1 > w[i] && w[i] > 1 {
				t = ansi.Truncate(t, w[i]-1, "")
			}
			t += map[bool]string{false: "▲", true: "▼"}[l.desc]
		}
		hdr[i] = t
	}
	b.WriteString(s.Header.Render(text.Fit(joinCells(" ", hdr, w, l.cols, 0), width)))
	for i := 0; i < rowsH; i++ {
		b.WriteByte('\n')
		vi := l.offset + i
		if vi >= len(l.visible) {
			continue
		}
		r := l.rows[l.visible[vi]]
		level := r.Level
		if l.sortCol >= 0 {
			level = 0
		}
		mark := " "
		if vi == l.cursor {
			mark = "›"
		}
		line := text.Fit(joinCells(mark, r.Cells, w, l.cols, level), width)
		switch {
		case vi == l.cursor:
			line = s.Selected.Render(line)
		case r.Tone == ToneDim:
			line = s.Dim.Render(line)
		case r.Tone == ToneErr:
			line = s.Err.Render(line)
		case r.Tone == ToneWarn:
			line = s.Warn.Render(line)
		case r.Tone == ToneOK:
			line = s.OK.Render(line)
		}
		b.WriteString(line)
	}
	b.WriteByte('\n')
	b.WriteString(s.Dim.Render(text.Fit(l.footer(), width)))
	return b.String()
}

func (l *Model) footer() string {
	leaves, shown := 0, 0
	for _, r := range l.rows {
		if r.Leaf {
			leaves++
		}
	}
	for _, i := range l.visible {
		if l.rows[i].Leaf {
			shown++
		}
	}
	f := strconv.Itoa(shown) + " of " + strconv.Itoa(leaves)
	switch {
	case l.filtering:
		f += " · filter: " + l.filter + "▏ (enter keep, esc clear)"
	case l.filter != "":
		f += " · filter: " + l.filter + " (esc clears)"
	}
	if l.sortCol >= 0 {
		f += " · sorted by " + l.cols[l.sortCol].Title
	}
	return f
}

// joinCells lays cells out in their column widths; the first cell is
// indented by its tree level.
func joinCells(mark string, cells []string, w []int, cols []Column, level int) string {
	var b strings.Builder
	b.WriteString(mark)
	for i := range w {
		b.WriteByte(' ')
		c := ""
		if i < len(cells) {
			c = cells[i]
		}
		if i == 0 && level > 0 {
			c = strings.Repeat("  ", level) + c
		}
		if cols[i].Right {
			b.WriteString(text.PadLeft(c, w[i]))
		} else {
			b.WriteString(text.PadRight(c, w[i]))
		}
	}
	return b.String()
}

// Filtering reports whether the filter is being typed (the list then takes
// every key: letters must not switch tabs).
func (l *Model) Filtering() bool { return l.filtering }

// Filter returns the filter kept or being typed.
func (l *Model) Filter() string { return l.filter }

// Cursor returns the index of the row under the cursor among those shown.
func (l *Model) Cursor() int { return l.cursor }

// SetCursor puts the cursor on the i-th row shown (bounded).
func (l *Model) SetCursor(i int) {
	l.cursor = i
	l.clampCursor()
}

// Rows returns every row, shown or not.
func (l *Model) Rows() []Row { return l.rows }

// Len returns the number of rows shown (the filter applied).
func (l *Model) Len() int { return len(l.visible) }
