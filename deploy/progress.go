package deploy

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// maxLiveRows is the most hosts the live display redraws in place; more
// hosts fall back to one line per step.
const maxLiveRows = 30

// Progress is the plain-terminal display of deployment events, for
// `gridtui deploy`: on a terminal it redraws one row per host in place, else
// (or with many hosts) it prints one line per step. Pass its Event method as
// Options.Events.
type Progress struct {
	w     io.Writer
	live  bool
	width int // host column

	mu      sync.Mutex
	order   []string
	rows    map[string]*progressRow
	drawn   int
	lastRaw time.Time
}

type progressRow struct {
	phase    Phase
	progress float64
	detail   string
	step     int // last printed upload quarter, line mode
}

// NewProgress returns a display for hosts on w; tty says whether w is a
// terminal (cursor movement allowed).
func NewProgress(w io.Writer, hosts []inventory.Host, tty bool) *Progress {
	p := &Progress{w: w, live: tty && len(hosts) <= maxLiveRows, rows: map[string]*progressRow{}}
	for _, h := range hosts {
		if _, ok := p.rows[h.Name]; ok {
			continue
		}
		p.order = append(p.order, h.Name)
		p.rows[h.Name] = &progressRow{phase: "waiting", step: -1}
		p.width = max(p.width, len(h.Name))
	}
	return p
}

// Event records e and updates the display.
func (p *Progress) Event(e Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.rows[e.Host]
	if !ok {
		r = &progressRow{step: -1}
		p.rows[e.Host] = r
		p.order = append(p.order, e.Host)
		p.width = max(p.width, len(e.Host))
	}
	changed := r.phase != e.Phase
	r.phase, r.progress, r.detail = e.Phase, e.Progress, e.Detail
	if e.Err != nil {
		r.detail = e.Err.Error()
	}
	if p.live {
		// Redraw at most 20 times a second while uploading.
		if changed || time.Since(p.lastRaw) > 50*time.Millisecond {
			p.redraw()
		}
		return
	}
	p.line(e.Host, r, changed)
}

// line prints a step in line mode; uploads print at 0, 25, 50, 75 %.
func (p *Progress) line(host string, r *progressRow, changed bool) {
	if r.phase == PhaseUpload {
		q := int(r.progress * 4)
		if q == r.step || q >= 4 {
			return
		}
		r.step = q
	} else if !changed {
		return
	}
	fmt.Fprintf(p.w, "%-*s  %s\n", p.width, host, p.cell(r))
}

func (p *Progress) cell(r *progressRow) string {
	switch r.phase {
	case PhaseUpload:
		return fmt.Sprintf("%-8s %s %3.0f%%", r.phase, bar(r.progress, 20), 100*r.progress)
	case PhaseFailed:
		return "FAILED   " + oneLine(r.detail)
	}
	if r.detail != "" {
		return fmt.Sprintf("%-8s %s", r.phase, oneLine(r.detail))
	}
	return string(r.phase)
}

// redraw rewrites every row in place (cursor up, clear line).
func (p *Progress) redraw() {
	var b strings.Builder
	if p.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", p.drawn)
	}
	for _, h := range p.order {
		fmt.Fprintf(&b, "\r\x1b[2K%-*s  %s\n", p.width, h, p.cell(p.rows[h]))
	}
	p.drawn = len(p.order)
	p.lastRaw = time.Now()
	io.WriteString(p.w, b.String())
}

// Flush draws the final state (live mode) so nothing shown is stale.
func (p *Progress) Flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.live {
		p.redraw()
	}
}

func bar(f float64, n int) string {
	k := int(f*float64(n) + 0.5)
	k = min(max(k, 0), n)
	return "[" + strings.Repeat("#", k) + strings.Repeat(".", n-k) + "]"
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

// WriteSummary prints what happened: counts, then every failure with its
// reason.
func WriteSummary(w io.Writer, s Summary, elapsed time.Duration) {
	ok, unchanged, relayed, bytes := 0, 0, 0, int64(0)
	for _, r := range s.Results {
		if r.Phase != PhaseFailed {
			ok++
		}
		if r.Detail == "unchanged" {
			unchanged++
		}
		if r.RelayedFrom != "" {
			relayed++
		} else {
			bytes += r.Bytes
		}
	}
	fmt.Fprintf(w, "\n%d of %d hosts ok", ok, len(s.Results))
	if unchanged > 0 || bytes > 0 {
		fmt.Fprintf(w, " (%d unchanged, %s uploaded", unchanged, humanBytes(bytes))
		if relayed > 0 {
			fmt.Fprintf(w, ", %d relayed inside their site", relayed)
		}
		fmt.Fprint(w, ")")
	}
	fmt.Fprintf(w, " in %.2fs\n", elapsed.Seconds())
	f := s.Failed()
	if len(f) == 0 {
		return
	}
	fmt.Fprintf(w, "%d failed:\n", len(f))
	for _, r := range f {
		fmt.Fprintf(w, "  %s: %v\n", r.Host, r.Err)
	}
}

// Prompt runs fn (which talks to the user on the terminal) with the display
// paused, then redraws below what fn printed.
func (p *Progress) Prompt(fn func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fn()
	p.drawn = 0
	if p.live {
		p.redraw()
	}
}
