package ui

import (
	"context"
	"fmt"
	"os"
	"testing"

	_ "github.com/gridtui/gridtui/apps/obstacle" // the default job's application (workers of this binary run it)
	_ "github.com/gridtui/gridtui/apps/sparse"   // an application whose problem is a file (Compose, Predict)
	"github.com/gridtui/gridtui/engine/worker"
	"github.com/gridtui/gridtui/ui/page/compose"
)

// TestMain lets the test binary act as `gridtui worker`: the local launcher
// starts os.Executable() with the argument "worker", so the console flow
// test runs real worker processes of this binary.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "worker" {
		if err := worker.ServeWorker(context.Background(), os.Stdin, os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	compose.PredictDebounce = 0 // tests run the commands they get at once
	os.Exit(m.Run())
}
