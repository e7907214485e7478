// Package termsafe makes text that comes from outside gridtui — names read
// from files, a worker's log, a remote host's error text, a program's output
// — safe to print on a terminal. Text is the one function every such string
// passes through where it enters a view or a report: it writes as a Go
// escape (\x1b, \u202e) every character that could do more than print (C0
// and C1 controls, DEL, line separators, bidirectional overrides, invalid
// UTF-8), so that a compromised or misconfigured host cannot move the
// cursor, clear the screen, set the title or reorder what the operator reads.
package termsafe
