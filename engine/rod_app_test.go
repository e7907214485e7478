package engine

import "github.com/gridtui/gridtui/internal/testrod"

// engine/solve's test application "test-rod", registered in this
// package's test binary too: its workers run it.
func init() { testrod.Register() }
