package bsp_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/engine"
)

// expectation is what a conformance program states in its comment:
//
//	expect: ok ["text process 0 or the last prints"]
//	expect: fail [process N] "text of the error"   (one line per text)
//	procs: 2 4 8                                     (default 1 2 4 8)
//	timeout: 2                                       (seconds, default 60)
type expectation struct {
	ok      bool
	output  string
	fails   []string // texts the error must contain
	procs   []int
	timeout string
	args    string
}

var (
	expectRE = regexp.MustCompile(`expect: (ok|fail)(?: process (\d+))?(?: "([^"]*)")?`)
	procsRE  = regexp.MustCompile(`procs: ([\d ]+)`)
	timeRE   = regexp.MustCompile(`timeout: (\d+)`)
)

func readExpectation(t *testing.T, path string) expectation {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	if end := strings.Index(src, "*/"); end > 0 {
		src = src[:end]
	}
	e := expectation{procs: []int{1, 2, 4, 8}, timeout: "60"}
	ms := expectRE.FindAllStringSubmatch(src, -1)
	if len(ms) == 0 {
		t.Fatalf("%s states no expectation", path)
	}
	for _, m := range ms {
		e.ok = m[1] == "ok"
		switch {
		case e.ok:
			e.output = m[3]
		case m[2] != "":
			e.fails = append(e.fails, "process "+m[2]+": "+m[3])
		default:
			e.fails = append(e.fails, m[3])
		}
	}
	if m := procsRE.FindStringSubmatch(src); m != nil {
		e.procs = nil
		for _, f := range strings.Fields(m[1]) {
			n, _ := strconv.Atoi(f)
			e.procs = append(e.procs, n)
		}
	}
	if m := timeRE.FindStringSubmatch(src); m != nil {
		e.timeout = m[1]
	}
	return e
}

// TestConformance runs each program of testdata/conformance on 1, 2, 4
// and 8 processes of the local grid (those its comment allows) and checks
// the outcome its comment states: a run that succeeds (with the output it
// names), or a failed run whose error names the process, the call and the
// rule. By default (and in CI) each program runs on 2 processes only;
// GRIDTUI_BSP_FULL=1 runs every count its comment allows (about 130 runs).
func TestConformance(t *testing.T) {
	full := os.Getenv("GRIDTUI_BSP_FULL") != ""
	progs, _ := filepath.Glob(filepath.Join(here(), "testdata", "conformance", "*.c"))
	if len(progs) == 0 {
		t.Fatal("no conformance programs")
	}
	for _, src := range progs {
		name := strings.TrimSuffix(filepath.Base(src), ".c")
		e := readExpectation(t, src)
		for _, n := range e.procs {
			if !full && n != 2 {
				continue
			}
			t.Run(name+"/"+strconv.Itoa(n), func(t *testing.T) {
				prog := build(t, src)
				rep, err := runBSPTimeout(t, prog, n, e.args, e.timeout)
				if e.ok {
					if err != nil {
						t.Fatalf("run failed: %v", err)
					}
					if e.output != "" && !strings.Contains(allOutput(rep), e.output) {
						t.Fatalf("output %q, want %q", allOutput(rep), e.output)
					}
					return
				}
				if err == nil || !errors.Is(err, engine.ErrRunFailed) {
					t.Fatalf("run: %v, want a failed run", err)
				}
				for _, want := range e.fails {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q\nwant it to contain %q", err, want)
					}
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
