package exec

import (
	"strings"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// TestParamPairs: GRID_Param sees the params pairs first, then every other
// job parameter, but no value that the split at spaces would cut.
func TestParamPairs(t *testing.T) {
	v, err := gridapp.Parse(App{}.Params(), map[string]string{"program": "/bin/true", "params": "n=32 eps=1", "items": "12", "args": "a b"})
	if err != nil {
		t.Fatal(err)
	}
	got := paramPairs(v)
	if !strings.HasPrefix(got, "n=32 eps=1 ") {
		t.Errorf("params pairs not first: %q", got)
	}
	for _, want := range []string{" items=12", " program=/bin/true", " eps="} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "args=") {
		t.Errorf("a value with a space passed: %q", got)
	}
}

// TestTailLogsLines: a program's output reaches the node's log line by
// line, prefixed, however the writes cut it; the tail still keeps the end.
func TestTailLogsLines(t *testing.T) {
	var log strings.Builder
	tl := &tail{log: &log, prefix: "program p (rank 2): "}
	for _, w := range []string{"first li", "ne\nsecond\n", "third", "\n"} {
		tl.Write([]byte(w))
	}
	want := "program p (rank 2): first line\nprogram p (rank 2): second\nprogram p (rank 2): third\n"
	if log.String() != want {
		t.Errorf("log %q, want %q", log.String(), want)
	}
	if got := tl.lastLine(); !strings.Contains(got, "third") {
		t.Errorf("last line %q", got)
	}
}
