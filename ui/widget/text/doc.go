// Package text measures and fits terminal text for the console's widgets
// and pages: the display width of a line that may hold SGR escapes (a byte
// scan for the narrow symbols the console draws, the grapheme-aware
// ansi.StringWidth for anything else), and padding or cutting it to a
// number of cells.
package text
