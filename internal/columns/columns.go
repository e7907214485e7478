package columns

import (
	"bytes"
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Writer is a filter that aligns its input's tab-terminated cells into
// columns, as a text/tabwriter.Writer made with minwidth 0, padchar ' '
// and no flags does: a column is a run of consecutive lines that have a
// cell in it, as wide as its widest cell plus the padding; the text after
// a line's last tab is not part of a column. A line without a tab ends
// every column: the text buffered so far is written then, and at Flush.
type Writer struct {
	out     io.Writer
	padding int
	buf     bytes.Buffer // the text of the lines not yet written
	lines   [][]string   // buffered lines, each split at its tabs
	widths  []int        // the widths of the columns being formatted
	err     error
}

// NewWriter returns a Writer to out that pads every cell with padding
// spaces beyond the widest cell of its column.
func NewWriter(out io.Writer, padding int) *Writer {
	return &Writer{out: out, padding: padding}
}

// Width is the number of terminal columns s takes.
func Width(s string) int { return ansi.StringWidth(s) }

// Write buffers p; each complete line without a tab writes what is
// buffered. Its error is the underlying writer's.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	for i, c := range p {
		if c != '\n' {
			w.buf.WriteByte(c)
			continue
		}
		line := w.buf.String()
		w.buf.Reset()
		w.lines = append(w.lines, strings.Split(line, "\t"))
		if !strings.Contains(line, "\t") {
			if err := w.flush(true); err != nil {
				return i, err
			}
		}
	}
	return len(p), nil
}

// Flush writes every buffered line, the last one without a newline when
// the input did not end with one.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if w.buf.Len() > 0 {
		w.lines = append(w.lines, strings.Split(w.buf.String(), "\t"))
		w.buf.Reset()
		return w.flush(false)
	}
	return w.flush(true)
}

// flush formats and writes the buffered lines, each ended by a newline
// but the last when newline is false.
func (w *Writer) flush(newline bool) error {
	var b strings.Builder
	w.format(&b, 0, len(w.lines))
	s := b.String()
	if !newline {
		s = strings.TrimSuffix(s, "\n")
	}
	w.lines, w.widths = w.lines[:0], w.widths[:0]
	if _, err := io.WriteString(w.out, s); err != nil {
		w.err = err
	}
	return w.err
}

// format writes lines line0 to line1, the columns from len(w.widths) on
// laid out over the blocks of consecutive lines that have a cell in them
// (text/tabwriter's algorithm).
func (w *Writer) format(b *strings.Builder, line0, line1 int) {
	column := len(w.widths)
	for this := line0; this < line1; this++ {
		if column >= len(w.lines[this])-1 {
			continue
		}
		w.writeLines(b, line0, this)
		line0 = this
		width := 0
		for ; this < line1 && column < len(w.lines[this])-1; this++ {
			width = max(width, Width(w.lines[this][column])+w.padding)
		}
		w.widths = append(w.widths, width)
		w.format(b, line0, this)
		w.widths = w.widths[:len(w.widths)-1]
		line0 = this
	}
	w.writeLines(b, line0, line1)
}

// writeLines writes lines line0 to line1, each cell of a column padded to
// the column's width.
func (w *Writer) writeLines(b *strings.Builder, line0, line1 int) {
	for _, line := range w.lines[line0:line1] {
		for j, cell := range line {
			b.WriteString(cell)
			if j < len(w.widths) && j < len(line)-1 {
				b.WriteString(strings.Repeat(" ", max(0, w.widths[j]-Width(cell))))
			}
		}
		b.WriteByte('\n')
	}
}

// PadRight is s followed by the spaces that make it w terminal columns
// wide; s itself when it is as wide or wider (fmt's "%-*s" counts runes).
func PadRight(s string, w int) string {
	return s + strings.Repeat(" ", max(0, w-Width(s)))
}

// PadLeft is PadRight with the spaces before s.
func PadLeft(s string, w int) string {
	return strings.Repeat(" ", max(0, w-Width(s))) + s
}
