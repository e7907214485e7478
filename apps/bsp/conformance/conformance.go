package conformance

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Expectation is what a conformance program states in its first comment.
type Expectation struct {
	OK      bool     // the run succeeds
	Output  string   // a successful run's output contains it ("" for any)
	Fails   []string // texts a failed run's error must all contain
	Procs   []int    // the process counts it runs on
	Timeout string   // the job's timeout parameter, in seconds
	Args    string   // the program's arguments
}

// Program is one program of the suite.
type Program struct {
	Name   string // the file name without ".c"
	Source string // the path of its C source
	Expectation
}

// Runs tells whether the program runs on n processes.
func (p Program) Runs(n int) bool {
	for _, k := range p.Procs {
		if k == n {
			return true
		}
	}
	return false
}

var (
	expectRE = regexp.MustCompile(`expect: (ok|fail)(?: process (\d+))?(?: "([^"]*)")?`)
	procsRE  = regexp.MustCompile(`procs: ([\d ]+)`)
	timeRE   = regexp.MustCompile(`timeout: (\d+)`)
	argsRE   = regexp.MustCompile(`args: ([^\n*]*)`)
)

// Parse reads the expectation from a program's source: only its first
// comment counts.
func Parse(src string) (Expectation, error) {
	if end := strings.Index(src, "*/"); end > 0 {
		src = src[:end]
	}
	e := Expectation{Procs: []int{1, 2, 4, 8}, Timeout: "60"}
	ms := expectRE.FindAllStringSubmatch(src, -1)
	if len(ms) == 0 {
		return e, errors.New("conformance: no expectation (expect: ok or expect: fail) in the first comment")
	}
	for _, m := range ms {
		e.OK = m[1] == "ok"
		switch {
		case e.OK:
			e.Output = m[3]
		case m[2] != "":
			e.Fails = append(e.Fails, "process "+m[2]+": "+m[3])
		default:
			e.Fails = append(e.Fails, m[3])
		}
	}
	if m := procsRE.FindStringSubmatch(src); m != nil {
		e.Procs = nil
		for _, f := range strings.Fields(m[1]) {
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 {
				return e, fmt.Errorf("conformance: procs: %q is no process count", f)
			}
			e.Procs = append(e.Procs, n)
		}
	}
	if m := timeRE.FindStringSubmatch(src); m != nil {
		e.Timeout = m[1]
	}
	if m := argsRE.FindStringSubmatch(src); m != nil {
		e.Args = strings.TrimSpace(m[1])
	}
	return e, nil
}

// Suite reads every program (*.c) of dir, in the order of their names.
func Suite(dir string) ([]Program, error) {
	srcs, err := filepath.Glob(filepath.Join(dir, "*.c"))
	if err != nil {
		return nil, fmt.Errorf("conformance: %s: %w", dir, err)
	}
	if len(srcs) == 0 {
		return nil, fmt.Errorf("conformance: %s holds no program", dir)
	}
	progs := make([]Program, 0, len(srcs))
	for _, src := range srcs {
		b, err := os.ReadFile(src)
		if err != nil {
			return nil, fmt.Errorf("conformance: %w", err)
		}
		e, err := Parse(string(b))
		if err != nil {
			return nil, fmt.Errorf("%w: %s", err, src)
		}
		progs = append(progs, Program{Name: strings.TrimSuffix(filepath.Base(src), ".c"), Source: src, Expectation: e})
	}
	return progs, nil
}

// Judge compares a run with the expectation: failed says the run failed,
// cause is its error (or the report's cause), output what its processes
// printed. It returns nil when the run went as the standard specifies, and
// else what differs.
func (e Expectation) Judge(failed bool, cause, output string) error {
	if e.OK {
		if failed {
			return fmt.Errorf("the run failed: %s", cause)
		}
		if e.Output != "" && !strings.Contains(output, e.Output) {
			return fmt.Errorf("output %q, want it to contain %q", output, e.Output)
		}
		return nil
	}
	if !failed {
		return fmt.Errorf("the run succeeded, want it to fail with %q", strings.Join(e.Fails, `" and "`))
	}
	var missing []string
	for _, want := range e.Fails {
		if !strings.Contains(cause, want) {
			missing = append(missing, strconv.Quote(want))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("error %q, want it to contain %s", cause, strings.Join(missing, " and "))
	}
	return nil
}
