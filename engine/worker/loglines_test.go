package worker

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestLogLines: an application's lines reach the node's log, one record
// each.
func TestLogLines(t *testing.T) {
	var buf bytes.Buffer
	w := logLines{slog.New(slog.NewTextHandler(&buf, nil))}
	if n, err := w.Write([]byte("program p (rank 1): one\nprogram p (rank 1): two\n")); n != 48 || err != nil {
		t.Fatalf("Write: %d, %v", n, err)
	}
	out := buf.String()
	if strings.Count(out, "application output") != 2 || !strings.Contains(out, `line="program p (rank 1): two"`) {
		t.Errorf("log:\n%s", out)
	}
}
