package jobs

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzResultsRead feeds arbitrary bytes to the results-store decoder: it
// must never panic, and every non-blank line is either a record, a reported
// corrupt line or the truncated tail.
func FuzzResultsRead(f *testing.F) {
	rec := sampleRecord("alpha", Synchronous, 1, 2, 1.5)
	rec.ID = "seed"
	line, err := json.Marshal(rec)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(append(line, '\n'))
	f.Add(append(append(line, '\n'), line[:20]...))
	f.Add([]byte("{\n\"v\":1}\n\n{}"))
	f.Add([]byte(`{"v":1,"true_residual":"NaN","nodes":[{"sigma":"+Inf"}]}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res := &Results{Path: "fuzz"}
		if err := res.read(bytes.NewReader(data)); err != nil {
			t.Fatalf("read of an in-memory buffer failed: %v", err)
		}
		nonBlank := 0
		for l := range bytes.Lines(data) {
			if len(bytes.TrimSpace(l)) > 0 {
				nonBlank++
			}
		}
		tail := 0
		if res.Truncated {
			tail = 1
		}
		if got := len(res.Records) + len(res.Corrupt) + tail; got != nonBlank {
			t.Fatalf("%d records + %d corrupt + %d tail, want %d non-blank lines", len(res.Records), len(res.Corrupt), tail, nonBlank)
		}
	})
}
