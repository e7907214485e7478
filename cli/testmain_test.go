package cli

import (
	"os"
	"testing"
)

// asGridtui, set to 1 in its environment, makes the test binary run as
// gridtui (its arguments the command line's).
const asGridtui = "GRIDTUI_TEST_AS_GRIDTUI"

// TestMain lets the test binary be the local grid's worker, as gridtui
// is: `deploy --start` on a local site starts this executable with
// `worker`.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "worker" {
		Main()
		os.Exit(0)
	}
	if os.Getenv(asGridtui) == "1" { // a test runs gridtui as a process of its own
		Main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}
