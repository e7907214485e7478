package engine

// The applications the tests of runs use, registered in the test binary
// (which its workers re-execute).
import (
	_ "github.com/gridtui/gridtui/apps/heat"
	_ "github.com/gridtui/gridtui/apps/poisson"
	_ "github.com/gridtui/gridtui/apps/sparse"
)
