package deploy

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy/inventory"
)

func TestProgressLineMode(t *testing.T) {
	var out bytes.Buffer
	p := NewProgress(&out, []inventory.Host{{Name: "a"}, {Name: "bb"}}, false)
	for _, e := range []Event{
		{Host: "a", Phase: PhaseConnect},
		{Host: "a", Phase: PhaseUpload, Progress: 0.01},
		{Host: "a", Phase: PhaseUpload, Progress: 0.02}, // same quarter: not printed
		{Host: "a", Phase: PhaseUpload, Progress: 0.5},
		{Host: "bb", Phase: PhaseFailed, Err: errors.New("deploy: connect to bb: refused\nmore")},
		{Host: "a", Phase: PhaseReady, Detail: "uploaded 1.0 MiB"},
	} {
		p.Event(e)
	}
	want := "a   connect\n" +
		"a   upload   [....................]   1%\n" +
		"a   upload   [##########..........]  50%\n" +
		"bb  FAILED   deploy: connect to bb: refused more\n" +
		"a   ready    uploaded 1.0 MiB\n"
	if out.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func TestProgressLiveRedrawsInPlace(t *testing.T) {
	var out bytes.Buffer
	p := NewProgress(&out, []inventory.Host{{Name: "a"}, {Name: "b"}}, true)
	p.Event(Event{Host: "a", Phase: PhaseConnect})
	p.Event(Event{Host: "b", Phase: PhaseReady, Detail: "unchanged"})
	s := out.String()
	if strings.Count(s, "\x1b[2A") != 1 || !strings.HasSuffix(s, "a  connect\n\r\x1b[2Kb  ready    unchanged\n") {
		t.Fatalf("live output %q", s)
	}
}

func TestWriteSummaryListsEveryFailure(t *testing.T) {
	var out bytes.Buffer
	s := Summary{Results: []Result{
		{Host: "a", Phase: PhaseReady, Bytes: 2 << 20},
		{Host: "b", Phase: PhaseFailed, Err: errors.New("no space left on device")},
		{Host: "c", Phase: PhaseReady, Detail: "unchanged"},
		{Host: "d", Phase: PhaseFailed, Err: ErrNoBinary},
	}}
	WriteSummary(&out, s, 1500*time.Millisecond)
	want := "\n2 of 4 hosts ok (1 unchanged, 2.0 MiB uploaded) in 1.50s\n2 failed:\n" +
		"  b: no space left on device\n  d: deploy: no matching binary\n"
	if out.String() != want {
		t.Fatalf("got %q\nwant %q", out.String(), want)
	}
	if err := s.Err(); !errors.Is(err, ErrHostsFailed) || !strings.Contains(err.Error(), "2 of 4") {
		t.Fatalf("Err = %v", err)
	}
}
