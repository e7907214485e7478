package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/jobs"
)

// The console's own loss (docs/FAILURES.md): a run whose parts checkpoint
// to disk is recorded in the data directory (resume/<id>.json, its
// manifest): the job, the nodes in rank order, where its checkpoints are,
// the console's process and the workers' local processes. Progress is the
// checkpoints themselves. A run that ends ok removes its manifest; one
// interrupted (Ctrl-C, its context) or lost to a loss it could not recover
// from marks it; one whose console was killed leaves it as it was. Run
// with RunOptions.Resume redeploys such a run on the same nodes and
// continues it from its last complete checkpoint (a synchronous run from
// the newest iteration every rank has: bit for bit the undisturbed run).

// ErrResume is wrapped by every refusal to resume a run: an unknown id, a
// run that finished, one still running, changed parameters.
var ErrResume = errors.New("engine: cannot resume")

// ResumeDir is the data directory's folder of run manifests.
const ResumeDir = "resume"

// manifestVersion is the manifest format's version.
const manifestVersion = 1

// Manifest is what the data directory keeps of a run that checkpoints to
// disk, for a later resume.
type Manifest struct {
	Version int    `json:"version"`
	ID      string `json:"id"`  // the run's id (its results-store record's)
	Job     string `json:"job"` // the job, as a job file
	// Key and Dir name the run's checkpoints (Dir/Key/).
	Key   string   `json:"checkpoint_key"`
	Dir   string   `json:"checkpoint_dir"`
	Ranks []string `json:"ranks"` // node per rank
	// Started is the first attempt's start; Resumes counts the resumes.
	Started time.Time `json:"started"`
	Resumes int       `json:"resumes,omitempty"`
	// Console is the console's host and process (argv[0] too, to tell a
	// reused PID): a live one means the run is still running.
	Console     string `json:"console_host"`
	ConsolePID  int    `json:"console_pid"`
	ConsoleExec string `json:"console_exec"`
	// Workers are the local worker processes (the local grid's): a resume
	// stops those the dead console left behind.
	Workers []ManifestWorker `json:"workers,omitempty"`
	// Ended says why the run stopped without finishing ("" while it runs,
	// or after its console was killed).
	Ended string `json:"ended,omitempty"`
}

// ManifestWorker is a local worker process of a recorded run.
type ManifestWorker struct {
	Host string `json:"host"`
	PID  int    `json:"pid"`
}

// Spec returns the manifest's job.
func (m *Manifest) Spec() (jobs.Spec, error) {
	return jobs.ParseSpec(m.ID+".job", []byte(m.Job))
}

func manifestPath(dataDir, id string) string {
	return filepath.Join(dataDir, ResumeDir, id+".json")
}

// save writes m atomically (a temporary file renamed).
func (m *Manifest) save(dataDir string) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("engine: run manifest %s: %w", m.ID, err)
	}
	path := manifestPath(dataDir, m.ID)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("engine: run manifest: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("engine: run manifest: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("engine: run manifest: %w", err)
	}
	return nil
}

// LoadManifest reads the manifest of run id in the data directory dataDir
// ("" the default). An id that has none fails with ErrResume, saying
// whether the results store knows the run (it finished, or ended for a
// reason a resume would meet again).
func LoadManifest(dataDir, id string) (*Manifest, error) {
	dir, err := jobs.DataDir(dataDir)
	if err != nil {
		return nil, err
	}
	if id == "" || strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") {
		return nil, fmt.Errorf("%w: %q is no run id", ErrResume, id)
	}
	b, err := os.ReadFile(manifestPath(dir, id))
	if errors.Is(err, os.ErrNotExist) {
		return nil, notResumable(dir, id)
	}
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrResume, id, err)
	}
	m := &Manifest{}
	if err := json.Unmarshal(b, m); err != nil || m.Version != manifestVersion || m.ID != id {
		return nil, fmt.Errorf("%w %s: its manifest %s is unreadable (version %d): %v", ErrResume, id, manifestPath(dir, id), m.Version, err)
	}
	return m, nil
}

// notResumable says why run id has no manifest.
func notResumable(dir, id string) error {
	res, err := jobs.Load(dir)
	if err == nil {
		for _, r := range res.Records {
			if r.Outcome == jobs.OutcomeOK && slices.ContainsFunc(r.Recoveries, func(rc jobs.Recovery) bool { return rc.How == resumedHow(id) }) {
				return fmt.Errorf("%w %s: it finished (ok, resumed, recorded as %s): nothing to resume", ErrResume, id, r.ID)
			}
		}
		for _, r := range res.Records {
			if r.ID == id {
				return fmt.Errorf("%w %s: it finished (%s): nothing to resume", ErrResume, id, r.Outcome)
			}
		}
	}
	return fmt.Errorf("%w %s: no such run in %s (gridtui results lists the runs that can be resumed)", ErrResume, id, dir)
}

// Resumable lists the manifests of the data directory dataDir ("" the
// default), oldest first; unreadable ones are skipped.
func Resumable(dataDir string) ([]*Manifest, error) {
	dir, err := jobs.DataDir(dataDir)
	if err != nil {
		return nil, err
	}
	names, err := filepath.Glob(filepath.Join(dir, ResumeDir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("engine: run manifests: %w", err)
	}
	sort.Strings(names)
	var out []*Manifest
	for _, n := range names {
		if m, err := LoadManifest(dir, strings.TrimSuffix(filepath.Base(n), ".json")); err == nil {
			out = append(out, m)
		}
	}
	return out, nil
}

// Running reports whether the run's console is still alive (on this host).
func (m *Manifest) Running() bool {
	host, _ := os.Hostname()
	return m.Ended == "" && host == m.Console && processIs(m.ConsolePID, m.ConsoleExec)
}

// Checkpoint says where a resume would restart from: the newest iteration
// every rank has (a synchronous run), or each part's newest; an error
// says why there is none.
func (m *Manifest) Checkpoint() (string, error) {
	spec, err := m.Spec()
	if err != nil {
		return "", err
	}
	from, err := restorePoint(m.Dir, m.Key, len(m.Ranks), spec.Scheme == jobs.Synchronous, false)
	if err != nil {
		return "", err
	}
	if from.Latest {
		return "each part's newest checkpoint", nil
	}
	return fmt.Sprintf("iteration %d", from.Restore), nil
}

// State says in a few words where the run stands.
func (m *Manifest) State() string {
	switch {
	case m.Running():
		return fmt.Sprintf("running (pid %d)", m.ConsolePID)
	case m.Ended != "":
		return m.Ended
	}
	return "its console ended mid-run"
}

// resumedHow is the recovery's How of a run resumed from id.
func resumedHow(id string) string { return "resumed run " + id }

// newManifest records a run about to start in dataDir: its job, its plan's
// ranks, its checkpoints and the processes involved.
func newManifest(spec jobs.Spec, id, key, dir string, ranks []string, workers []*deploy.Worker) (*Manifest, error) {
	job, err := jobs.FormatSpec(spec)
	if err != nil {
		return nil, fmt.Errorf("engine: run manifest: %w", err)
	}
	host, _ := os.Hostname()
	exe, _ := os.Executable()
	m := &Manifest{Version: manifestVersion, ID: id, Job: string(job), Key: key, Dir: dir, Ranks: slices.Clone(ranks),
		Started: time.Now().UTC(), Console: host, ConsolePID: os.Getpid(), ConsoleExec: filepath.Base(exe)}
	m.noteWorkers(workers)
	return m, nil
}

// noteWorkers records the local worker processes of workers.
func (m *Manifest) noteWorkers(workers []*deploy.Worker) {
	for _, w := range workers {
		if w.Hello.PID > 0 && w.Host.EthernetAddr.IsValid() && !slices.ContainsFunc(m.Workers, func(o ManifestWorker) bool { return o.PID == w.Hello.PID }) {
			m.Workers = append(m.Workers, ManifestWorker{Host: w.Host.Name, PID: w.Hello.PID})
		}
	}
}
