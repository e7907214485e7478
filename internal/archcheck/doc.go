// Package archcheck holds no code: its tests check the architecture the
// docs promise. The import table of docs/ARCHITECTURE.md is checked against
// what `go list` says each package imports, so that the table cannot drift
// from the code; and the engine, predict and the console name no
// application of apps/ in their code, so that every application stays
// equal (comments and tests may).
package archcheck
