// Package archcheck holds no code: its test checks the import table of
// docs/ARCHITECTURE.md against what `go list` says each package imports, so
// that the table cannot drift from the code.
package archcheck
