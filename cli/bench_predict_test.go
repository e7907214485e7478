package cli

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/jobs"
)

// TestBenchPredict validates on the multi-host harness's recorded runs
// (predict/testdata): the 4-node runs predicted from the 1- and 2-node ones.
func TestBenchPredict(t *testing.T) {
	run := func(args ...string) (string, error) {
		var out bytes.Buffer
		cmd := newBenchPredictCmd()
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SetArgs(append([]string{"--data-dir", "../predict/testdata/harness-100mbit"}, args...))
		err := cmd.Execute()
		return out.String(), err
	}
	out, err := run("--max-trace-nodes", "2")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"| obstacle | 48 | 1e-06 | 4 | sync |", "| obstacle | 64 | 1e-06 | 4 | hybrid |",
		"ranking obstacle n = 48, 4 nodes: predicted ", "of 6 cases", "ranked in the measured order: ",
		"rankings whose measured runs do not overlap: ", "pairs of schemes in the measured order: "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Two rankings of three schemes: six pairs.
	if !regexp.MustCompile(`(?m)^pairs of schemes in the measured order: \d of 6 \(\d+ %\); of the \d predicted within 5 % of each other: \d, of the \d further apart: \d$`).MatchString(out) {
		t.Errorf("no line counting six pairs:\n%s", out)
	}
	out, err = run("--max-trace-nodes", "2", "--shared-cores", "2", "--json")
	var v struct {
		SharedCores int `json:"shared_cores"`
		Cases       []struct {
			Predicted float64 `json:"predicted_seconds"`
		} `json:"cases"`
	}
	if err != nil || json.Unmarshal([]byte(out), &v) != nil || len(v.Cases) != 6 || v.Cases[0].Predicted <= 0 || v.SharedCores != 2 {
		t.Errorf("--json: %v\n%s", err, out)
	}
	if out, err := run("--max-trace-nodes", "0"); err == nil {
		t.Errorf("--max-trace-nodes 0 accepted:\n%s", out)
	}
}

// TestJoinSchemes: tied schemes are written "=", the others "<".
func TestJoinSchemes(t *testing.T) {
	ss := []jobs.Scheme{jobs.Synchronous, jobs.Asynchronous, jobs.Hybrid}
	for _, tc := range []struct {
		ties []bool
		want string
	}{
		{nil, "sync < async < hybrid"},
		{[]bool{false, true}, "sync < async = hybrid"},
		{[]bool{true, true}, "sync = async = hybrid"},
	} {
		if got := joinSchemes(ss, tc.ties); got != tc.want {
			t.Errorf("ties %v: %q, want %q", tc.ties, got, tc.want)
		}
	}
}
