package cli

import (
	"os"
	"testing"
)

// TestMain lets the test binary be the local grid's worker, as gridtui
// is: `deploy --start` on a local site starts this executable with
// `worker`.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "worker" {
		Main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}
