package conformance

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want Expectation
	}{
		{"/* a rule\n * expect: ok */\nint main(){}",
			Expectation{OK: true, Procs: []int{1, 2, 4, 8}, Timeout: "60"}},
		{"/* expect: ok \"inner product 42\"\n * args: 1000 7\n */",
			Expectation{OK: true, Output: "inner product 42", Procs: []int{1, 2, 4, 8}, Timeout: "60", Args: "1000 7"}},
		{"/* timeout: 2\n * procs: 2 4\n * expect: fail process 1 \"hung: no BSPlib call\"\n * expect: fail \"in superstep 6\" */",
			Expectation{Fails: []string{"process 1: hung: no BSPlib call", "in superstep 6"}, Procs: []int{2, 4}, Timeout: "2"}},
		{"/* expect: ok */\n/* expect: fail \"after the first comment\" */",
			Expectation{OK: true, Procs: []int{1, 2, 4, 8}, Timeout: "60"}},
	} {
		got, err := Parse(tc.src)
		if err != nil {
			t.Fatalf("%q: %v", tc.src, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.src, got, tc.want)
		}
	}
	for _, src := range []string{"/* nothing stated */", "/* expect: ok\n * procs: 2 0 */"} {
		if _, err := Parse(src); err == nil || !strings.HasPrefix(err.Error(), "conformance: ") {
			t.Errorf("%q: error %v, want a conformance error", src, err)
		}
	}
}

func TestJudge(t *testing.T) {
	ok := Expectation{OK: true, Output: "sum 10"}
	fail := Expectation{Fails: []string{"process 0: bsp_move", "queue is empty"}}
	for _, tc := range []struct {
		e             Expectation
		failed        bool
		cause, output string
		wantErr       string
	}{
		{ok, false, "", "x\nsum 10\n", ""},
		{ok, false, "", "sum 11", `want it to contain "sum 10"`},
		{ok, true, "process 1: crashed", "sum 10", "the run failed: process 1: crashed"},
		{fail, true, "process 0: bsp_move: the message queue is empty", "", ""},
		{fail, true, "process 1: bsp_move: the message queue is empty", "", `want it to contain "process 0: bsp_move"`},
		{fail, false, "", "", "the run succeeded"},
	} {
		err := tc.e.Judge(tc.failed, tc.cause, tc.output)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%+v %v %q: %v", tc.e, tc.failed, tc.cause, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%+v %v %q: error %v, want %q", tc.e, tc.failed, tc.cause, err, tc.wantErr)
		}
	}
}

// TestSuite reads the real suite: every program states an expectation,
// and a failing one names at least one text.
func TestSuite(t *testing.T) {
	progs, err := Suite("../testdata/conformance")
	if err != nil {
		t.Fatal(err)
	}
	if len(progs) < 30 {
		t.Fatalf("%d programs, want the whole suite", len(progs))
	}
	for _, p := range progs {
		if !p.OK && len(p.Fails) == 0 {
			t.Errorf("%s: expects a failure but names no text", p.Name)
		}
		if len(p.Procs) == 0 {
			t.Errorf("%s: runs on no process count", p.Name)
		}
	}
	if _, err := Suite(t.TempDir()); err == nil {
		t.Error("an empty directory: no error")
	}
}
