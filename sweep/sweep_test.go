package sweep

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestParseAxis(t *testing.T) {
	tests := map[string]struct {
		in   string
		want []string
		err  string
	}{
		"list":       {in: "n=32,48,64", want: []string{"32", "48", "64"}},
		"range":      {in: "n=1:9:4", want: []string{"1", "5", "9"}},
		"range step": {in: "k=3:5", want: []string{"3", "4", "5"}},
		"empty":      {in: "n=", err: "an empty list"},
		"no name":    {in: "=1,2", err: "want name="},
		"bad range":  {in: "n=5:1", err: "empty"},
		"zero step":  {in: "n=1:5:0", err: "step must be positive"},
		"huge":       {in: "n=1:10000000", err: "more than the 100000"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			a, err := ParseAxis(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrSweep) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || strings.Join(a.Values, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("%v %v, want %v", a.Values, err, tc.want)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	ins, err := Expand(map[string]string{"eps": "1e-6"}, []Axis{{"n", []string{"1", "2"}}, {"m", []string{"a", "b", "c"}}}, nil)
	if err != nil || len(ins) != 6 || ins[1]["m"] != "b" || ins[3]["n"] != "2" || ins[5]["eps"] != "1e-6" {
		t.Fatalf("%v %v", ins, err)
	}
	if _, err := Expand(nil, []Axis{{"x", []string{"1"}}}, func(s string) bool { return s == "n" }); err == nil || !strings.Contains(err.Error(), `no parameter "x"`) {
		t.Fatalf("unknown parameter: %v", err)
	}
	big := Axis{"a", make([]string, 1000)}
	if _, err := Expand(nil, []Axis{big, {"b", make([]string, 1000)}}, nil); err == nil || !strings.Contains(err.Error(), "more than 100000") {
		t.Fatalf("10⁶ instances: %v", err)
	}
}

// TestSweep100: 100 instances, instance 37 fails on its first attempt;
// the sweep is interrupted halfway, then resumed: only the rest run, the
// table has every instance once, ok, 37 with two attempts.
func TestSweep100(t *testing.T) {
	a, _ := ParseAxis("n=0:99")
	ins, err := Expand(map[string]string{"eps": "1e-8"}, []Axis{a}, nil)
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "sweep.log")
	var mu sync.Mutex
	runs := map[string]int{}
	var atOnce, most atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	var started atomic.Int32
	runner := func(ctx context.Context, p map[string]string) (Result, error) {
		n := atOnce.Add(1)
		defer atOnce.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		mu.Lock()
		runs[p["n"]]++
		k := runs[p["n"]]
		mu.Unlock()
		if started.Add(1) == 50 {
			cancel() // Ctrl-C halfway
		}
		time.Sleep(time.Millisecond)
		if p["n"] == "37" && k == 1 {
			return Result{}, errors.New("made to fail once")
		}
		v, _ := strconv.Atoi(p["n"])
		return Result{Iterations: 10 * v, Residual: 1e-9}, nil
	}
	var last Progress
	_, err = Run(ctx, ins, runner, Options{Throttle: 4, Retries: 1, Log: logPath, Progress: func(p Progress) { last = p }})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted sweep: %v", err)
	}
	if most.Load() > 4 {
		t.Errorf("%d instances at once, throttle 4", most.Load())
	}
	firstRuns := len(runs)
	out, err := Run(context.Background(), ins, runner, Options{Throttle: 4, Retries: 1, Log: logPath, Resume: true, Progress: func(p Progress) { last = p }})
	if err != nil {
		t.Fatal(err)
	}
	if last.Done != 100 || last.Failed != 0 || last.ETA != 0 {
		t.Errorf("last progress %+v", last)
	}
	reran := 0
	for i, o := range out {
		if o.Status != StatusOK || o.Iterations != 10*i {
			t.Errorf("instance %d: %+v", i, o)
		}
		if o.Rerun != "" {
			reran++
		}
		if n := runs[strconv.Itoa(i)]; n != 1 && !(i == 37 && n == 2) {
			t.Errorf("instance %d ran %d times", i, n)
		}
	}
	if out[37].Attempts != 2 && runs["37"] != 2 {
		t.Errorf("instance 37: %+v, ran %d times", out[37], runs["37"])
	}
	if reran == 0 || reran > 100-firstRuns+4 {
		t.Errorf("%d instances say why they reran; the first sweep ran %d", reran, firstRuns)
	}
	var b bytes.Buffer
	if err := WriteCSV(&b, out); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(rows) != 101 || rows[0][1] != "eps" || rows[0][2] != "n" || rows[38][2] != "37" || rows[38][3] != "ok" {
		t.Fatalf("table: %v %v", rows[:2], err)
	}
}

func TestReadLines(t *testing.T) {
	in := "# n and eps\nn=8 eps=1e-4\n\nn=12 eps=1e-6\n"
	ins, err := ReadLines(strings.NewReader(in), "in.txt", func(s string) bool { return s == "n" || s == "eps" })
	if err != nil || len(ins) != 2 || ins[1]["n"] != "12" || ins[0]["eps"] != "1e-4" {
		t.Fatalf("%v %v", ins, err)
	}
	for text, want := range map[string]string{
		"n=1 bogus=2\n": `in.txt:1: the application has no parameter "bogus"`,
		"n=1\nx\n":      `in.txt:2: "x": want name=value`,
		"# nothing\n":   "no instance",
	} {
		if _, err := ReadLines(strings.NewReader(text), "in.txt", func(s string) bool { return s == "n" }); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
}
