// Package pager is the console's pager widget, with its own Model, KeyMap
// and Styles: a text too long or too wide for its place shown whole (a
// list row's details, a run's report, a results table). Prose is wrapped
// to the width; the lines of a table stay whole and scroll sideways, as
// less -S does. Copy puts the plain text on the clipboard (OSC 52) and
// reports it with a CopiedMsg.
package pager
