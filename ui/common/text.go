package common

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/ui/widget/text"
)

// Place pads a short text to the body area: exactly BodyHeight lines of
// Width cells.
func Place(c *Common, s string) string {
	lines := strings.Split(s, "\n")
	h := c.BodyHeight()
	for len(lines) < h {
		lines = append(lines, "")
	}
	for i := range lines {
		lines[i] = text.Fit(lines[i], c.Width)
	}
	return strings.Join(lines[:h], "\n")
}

// Wrap breaks s into lines of at most w cells at spaces.
func Wrap(s string, w int) string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		// A line that fits stays as it is: the excerpt under a file:line:col
		// error ("    7 |   cores = 0" / "      |   ^") must keep its
		// spaces or the marker points at the wrong column.
		if text.Width(para) <= w {
			out = append(out, strings.TrimRight(para, " "))
			continue
		}
		indent := para[:len(para)-len(strings.TrimLeft(para, " "))]
		if len(indent) >= w/2 {
			indent = ""
		}
		line := indent
		for _, word := range strings.Fields(para) {
			if strings.TrimSpace(line) != "" && text.Width(line)+1+text.Width(word) > w {
				out = append(out, line)
				line = indent
			}
			if strings.TrimSpace(line) != "" {
				line += " "
			}
			line += word
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// OrDefault is s, or d when s is empty.
func OrDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// MsgCmd is a command that sends msg.
func MsgCmd(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

// ClipWindow returns at most h lines of lines from first.
func ClipWindow(lines []string, first, h int) []string {
	if first > len(lines) {
		first = len(lines)
	}
	end := min(len(lines), first+h)
	return lines[first:end]
}
