package bsp_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/apps/bsp/conformance"
	"github.com/gridtui/gridtui/engine"
)

// TestConformance runs each program of testdata/conformance on 1, 2, 4
// and 8 processes of the local grid (those its comment allows) and checks
// the outcome its comment states: a run that succeeds (with the output it
// names), or a failed run whose error names the process, the call and the
// rule. By default (and in CI) each program runs on 2 processes only;
// GRIDTUI_BSP_FULL=1 runs every count its comment allows (about 130 runs).
func TestConformance(t *testing.T) {
	full := os.Getenv("GRIDTUI_BSP_FULL") != ""
	progs, err := conformance.Suite(filepath.Join(here(), "testdata", "conformance"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range progs {
		for _, n := range p.Procs {
			if !full && n != 2 {
				continue
			}
			t.Run(p.Name+"/"+strconv.Itoa(n), func(t *testing.T) {
				prog := build(t, p.Source)
				rep, err := runBSPTimeout(t, prog, n, p.Args, p.Timeout)
				if err != nil && !errors.Is(err, engine.ErrRunFailed) {
					t.Fatalf("run: %v, want a run that succeeds or fails", err)
				}
				output, cause := "", ""
				if rep != nil {
					output = allOutput(rep)
				}
				if err != nil {
					cause = err.Error()
				}
				if err := p.Judge(err != nil, cause, output); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

func allOutput(rep *engine.Report) string {
	var b strings.Builder
	for _, f := range rep.Figures {
		if strings.HasPrefix(f.Name, "output of") {
			b.WriteString(f.Text + "\n")
		}
	}
	return b.String()
}
