package sweep

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

const sampleLog = `{"kind":"sweep","sweep":"sweep-x","started":"2026-11-28T06:05:48Z","job":"app = \"poisson\"\n[sweep]\nn = [\"8\", \"9\"]\n","axes":[{"name":"n","values":["8","9"]}],"instances":2}
{"kind":"attempt","sweep":"sweep-x","instance":0,"attempt":1,"params":{"n":"8"},"hosts":["alpha-1"],"started":"2026-11-28T06:05:49Z","wall_seconds":0.5,"outcome":"failed","iterations":null,"residual":null,"run_seconds":null,"record_id":null,"error":"engine: alpha-1 died","why":null}
{"kind":"attempt","sweep":"sweep-x","instance":0,"attempt":2,"params":{"n":"8"},"hosts":["alpha-2"],"started":"2026-11-28T06:05:50Z","wall_seconds":0.4,"outcome":"ok","iterations":186,"residual":9.3e-09,"run_seconds":0.02,"record_id":"r1","error":null,"why":"retry 1 of 1: attempt 1 failed: engine: alpha-1 died"}
`

func TestParseLog(t *testing.T) {
	l, err := parseLog("x.jsonl", []byte(sampleLog))
	if err != nil {
		t.Fatal(err)
	}
	tab, err := TableOf(l)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 2 || tab.Rows[0].Outcome != OutcomeOK || tab.Rows[0].Attempts != 2 || *tab.Rows[0].Iterations != 186 || tab.Rows[1].Outcome != OutcomeNotRun {
		t.Errorf("table %+v", tab.Rows)
	}
	var text bytes.Buffer
	if err := tab.Write(&text, FormatTable); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(text.String(), "\n"); !strings.Contains(lines[1], "ok") || !strings.Contains(lines[2], "not run  0         –") {
		t.Errorf("text table:\n%s", text.String())
	}
	// A last line cut short by a crash is skipped; a bad line before it is not.
	if l, err := parseLog("x.jsonl", []byte(sampleLog+`{"kind":"attempt","inst`)); err != nil || len(l.Attempts) != 2 {
		t.Errorf("cut last line: %v", err)
	}
	if _, err := parseLog("x.jsonl", []byte(strings.Replace(sampleLog, `"kind":"attempt"`, `"kind":"attemp"`, 1))); err == nil || !strings.Contains(err.Error(), "x.jsonl:2:") {
		t.Errorf("bad line 2: %v", err)
	}
	if _, err := parseLog("x.jsonl", []byte("")); err == nil {
		t.Error("an empty log has no header and no error")
	}
}

func FuzzParseLog(f *testing.F) {
	f.Add([]byte(sampleLog))
	f.Add([]byte(sampleLog[:200]))
	f.Add([]byte(`{"kind":"sweep"}` + "\n" + `{"kind":"attempt","instance":-5,"attempt":-1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := parseLog("fuzz.jsonl", data)
		if err != nil {
			return
		}
		if tab, err := TableOf(l); err == nil {
			_ = tab.Write(&bytes.Buffer{}, FormatCSV)
		}
	})
}

func TestProgressLine(t *testing.T) {
	eta := 13*time.Second + 400*time.Millisecond
	p := Progress{Total: 100, Skipped: 10, Settled: 27, Running: 8, Queued: 55, OK: 26, Failed: 2, Retried: 1, Rate: 4.1, ETA: &eta}
	if got, want := p.Line(), "[ 37/100] 8 running, 55 queued, 26 ok, 2 failed, 1 retried  4.10/s  ETA 13s"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
	p.ETA = nil
	if !strings.HasSuffix(p.Line(), "ETA –") {
		t.Errorf("line %q without an ETA", p.Line())
	}
}
