package cli

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"
)

// brokenStderr, set to 1 in its environment, makes
// TestWorkerSurvivesClosedStderr's child write to its closed stderr.
const brokenStderr = "GRIDTUI_TEST_BROKEN_STDERR"

// TestWorkerSurvivesClosedStderr checks that a worker whose stderr is gone
// (its SSH session closed) is not killed by SIGPIPE when it logs: it must
// live on to remove its socket directory. The test runs itself as a child
// whose stderr is a pipe with no reader.
func TestWorkerSurvivesClosedStderr(t *testing.T) {
	if os.Getenv(brokenStderr) == "1" {
		_, stop := workerSignals(context.Background())
		defer stop()
		for range 3 {
			if _, err := os.Stderr.WriteString("a log line\n"); err == nil {
				t.Fatal("write to a closed stderr succeeded")
			}
		}
		return
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWorkerSurvivesClosedStderr$", "-test.count=1")
	cmd.Env = append(os.Environ(), brokenStderr+"=1")
	cmd.Stderr = w
	out, err := cmd.Output()
	w.Close()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		t.Fatalf("the child ended with %v (SIGPIPE kills a worker whose stderr is closed):\n%s", ee.ProcessState, out)
	} else if err != nil {
		t.Fatal(err)
	}
}
