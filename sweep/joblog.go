package sweep

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gridtui/gridtui/internal/jsonout"
	"github.com/gridtui/gridtui/jobs"
)

// ErrBusy is wrapped when another process runs the sweep (holds its job
// log's lock).
var ErrBusy = errors.New("sweep: the sweep is running in another process")

// maxLogInstances bounds the instances a job log may announce, so that a
// damaged header cannot make a reader allocate without end.
const maxLogInstances = 10_000_000

// ErrNoSweep is wrapped when a sweep id has no job log in the data
// directory.
var ErrNoSweep = errors.New("sweep: no such sweep")

// Header is the first line of a job log: the sweep's id, its job (as a job
// file, its [sweep] included) and its axes in their order, from which the
// instances are numbered again on --resume.
type Header struct {
	Kind      string    `json:"kind"` // "sweep"
	Sweep     string    `json:"sweep"`
	Started   time.Time `json:"started"`
	Job       string    `json:"job"`
	Axes      []Axis    `json:"axes"`
	Instances int       `json:"instances"`
}

// Axis is one swept name and its values in a job log.
type Axis struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// Attempt is one line of a job log: one attempt at one instance, written
// when it ends. Fields unknown for the attempt are null.
type Attempt struct {
	Kind     string            `json:"kind"` // "attempt"
	Sweep    string            `json:"sweep"`
	Instance int               `json:"instance"`
	Attempt  int               `json:"attempt"` // 1 for the first
	Params   map[string]string `json:"params"`
	Hosts    []string          `json:"hosts"`
	Started  time.Time         `json:"started"`
	// WallSeconds is the attempt's time from its start to its end, starting
	// the workers included.
	WallSeconds float64 `json:"wall_seconds"`
	// Outcome is ok, not converged, failed or cancelled (the sweep was
	// interrupted while it ran).
	Outcome    string   `json:"outcome"`
	Iterations *int     `json:"iterations"` // the most of any node
	Residual   *float64 `json:"residual"`   // the true global residual, when checked
	// RunSeconds is the run's own wall time (ts, starting excluded).
	RunSeconds *float64 `json:"run_seconds"`
	RecordID   *string  `json:"record_id"`
	Error      *string  `json:"error"`
	// Why says why this attempt ran when it is not the instance's first:
	// a retry after a failure, or a rerun on --resume.
	Why *string `json:"why"`
}

// Outcomes of an attempt besides the engine's ("ok", "not converged",
// "failed").
const (
	OutcomeOK        = "ok"
	OutcomeFailed    = "failed"
	OutcomeCancelled = "cancelled"
	OutcomeNotRun    = "not run"
)

// LogPath is the job log of sweep id in the data directory dir: beside the
// results store, in sweeps/.
func LogPath(dir, id string) string { return filepath.Join(dir, "sweeps", id+".jsonl") }

// runningPath is the file that lists the instances running now, beside the
// job log: after a crash of the console it says which instances were
// running, so that --resume can tell them from those never started.
func runningPath(logPath string) string {
	return strings.TrimSuffix(logPath, ".jsonl") + ".running.json"
}

// saveRunning replaces the running file atomically (a crash leaves the old
// or the new one whole).
func saveRunning(logPath string, rs []RunningInstance) error {
	path := runningPath(logPath)
	b, err := json.Marshal(rs)
	if err != nil {
		return fmt.Errorf("sweep: %s: %w", path, err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("sweep: %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("sweep: %s: %w", path, err)
	}
	return nil
}

// readRunning is what the running file of a job log lists, by instance;
// none when it is missing or damaged (the reason given is then vaguer).
func readRunning(logPath string) map[int]RunningInstance {
	b, err := os.ReadFile(runningPath(logPath))
	if err != nil {
		return nil
	}
	var rs []RunningInstance
	if json.Unmarshal(b, &rs) != nil {
		return nil
	}
	m := make(map[int]RunningInstance, len(rs))
	for _, r := range rs {
		m[r.Instance] = r
	}
	return m
}

// jobLog appends lines to a job log, one write per line, synced, so that a
// crash loses at most the line being written.
type jobLog struct {
	mu   sync.Mutex
	f    *os.File
	path string
}

func createLog(path string, h Header) (*jobLog, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("sweep: job log %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("sweep: job log %s: %w", path, err)
	}
	l := &jobLog{f: f, path: path}
	if err := lockLog(f); err != nil {
		f.Close()
		return nil, err
	}
	if err := l.write(h); err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

func appendLog(path string) (*jobLog, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("sweep: job log %s: %w", path, err)
	}
	if err := lockLog(f); err != nil {
		f.Close()
		return nil, err
	}
	return &jobLog{f: f, path: path}, nil
}

func (l *jobLog) write(v any) error {
	b, err := jsonout.Marshal(v)
	if err != nil {
		return fmt.Errorf("sweep: job log %s: %w", l.path, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("sweep: job log %s: %w", l.path, err)
	}
	return l.f.Sync()
}

func (l *jobLog) close() error { return l.f.Close() }

// Log is a job log read back: its header and its attempts in the order
// they ended.
type Log struct {
	Path     string
	Header   Header
	Attempts []Attempt
}

// ReadLog reads the job log of sweep id in dir. A last line cut short (the
// console died while writing it) is skipped; any other bad line is an error
// naming the file and line.
func ReadLog(dir, id string) (*Log, error) {
	path := LogPath(dir, id)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s (no job log %s; gridtui results sweep lists them)", ErrNoSweep, id, path)
	}
	if err != nil {
		return nil, fmt.Errorf("sweep: read job log %s: %w", path, err)
	}
	return parseLog(path, data)
}

// parseLog decodes a job log's lines; path names it in errors.
func parseLog(path string, data []byte) (*Log, error) {
	l := &Log{Path: path}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for line := 1; sc.Scan(); line++ {
		text := sc.Bytes()
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		var kind struct {
			Kind string `json:"kind"`
		}
		err := json.Unmarshal(text, &kind)
		switch {
		case err == nil && kind.Kind == "sweep" && line == 1:
			err = json.Unmarshal(text, &l.Header)
		case err == nil && kind.Kind == "attempt":
			var a Attempt
			if err = json.Unmarshal(text, &a); err == nil {
				l.Attempts = append(l.Attempts, a)
			}
		case err == nil:
			err = fmt.Errorf("unexpected kind %q", kind.Kind)
		}
		if err != nil {
			if !bytes.HasSuffix(data, []byte("\n")) && line == bytes.Count(data, []byte("\n"))+1 {
				break // the last line, cut short
			}
			return nil, fmt.Errorf("sweep: job log %s:%d: %w", path, line, err)
		}
	}
	if l.Header.Kind != "sweep" {
		return nil, fmt.Errorf("sweep: job log %s:1: no sweep header", path)
	}
	if l.Header.Instances < 1 || l.Header.Instances > maxLogInstances {
		return nil, fmt.Errorf("sweep: job log %s:1: %d instances (1…%d)", path, l.Header.Instances, maxLogInstances)
	}
	return l, nil
}

// Spec is the sweep's job read back from its header, with its axes in the
// order they were numbered in.
func (l *Log) Spec() (jobs.Spec, error) {
	spec, err := jobs.ParseSpec(l.Path, []byte(l.Header.Job))
	if err != nil {
		return spec, fmt.Errorf("sweep: job log %s: its job: %w", l.Path, err)
	}
	sw := &jobs.Sweep{}
	for _, a := range l.Header.Axes {
		sw.Axes = append(sw.Axes, jobs.SweepAxis{Name: a.Name, Values: a.Values})
	}
	spec.Sweep = sw
	return spec, nil
}

// ListSweeps returns the ids of the sweeps with a job log in dir, oldest
// first (ids sort by time).
func ListSweeps(dir string) ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(dir, "sweeps"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sweep: list %s: %w", dir, err)
	}
	var ids []string
	for _, e := range ents {
		if id, ok := strings.CutSuffix(e.Name(), ".jsonl"); ok && !e.IsDir() {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// NewID returns a fresh sweep id: "sweep-" and a run id (sortable by time).
func NewID(t time.Time) string { return "sweep-" + jobs.NewRecordID(t) }
