package engine

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/jobs"
)

// resumeState is a resumed run's: its manifest and where it restarts from.
type resumeState struct {
	m    *Manifest
	from solve.CheckpointPlan
	at   time.Time
}

// prepareResume loads the manifest of run opt.Resume and checks that it
// can go on: its console is gone, spec (as given to Run) is its job, the
// workers its console left behind are stopped, and every rank has a
// checkpoint to restart from.
func prepareResume(spec jobs.Spec, opt RunOptions, logf func(node, format string, args ...any)) (*resumeState, error) {
	m, err := LoadManifest(opt.StoreDir, opt.Resume)
	if err != nil {
		return nil, err
	}
	if m.Running() {
		return nil, fmt.Errorf("%w %s: it is still running (console process %d on %s)", ErrResume, m.ID, m.ConsolePID, m.Console)
	}
	old, err := m.Spec()
	if err != nil {
		return nil, fmt.Errorf("%w %s: its job: %w", ErrResume, m.ID, err)
	}
	if d, err := specDiff(normalSpec(old), normalSpec(spec)); err != nil || d != "" {
		return nil, fmt.Errorf("%w %s: changed parameters: %s (a resumed run keeps its job; start a new run instead)%v", ErrResume, m.ID, d, errOrEmpty(err))
	}
	for _, l := range stopStale(m) {
		logf("", "%s", l)
	}
	from, err := restorePoint(m.Dir, m.Key, len(m.Ranks), spec.Scheme == jobs.Synchronous, false)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrResume, m.ID, err)
	}
	return &resumeState{m: m, from: from, at: time.Now()}, nil
}

func errOrEmpty(err error) string {
	if err == nil {
		return ""
	}
	return ": " + err.Error()
}

// normalSpec is spec as a manifest records it and a resume compares it:
// with its defaults, its file parameters absolute (a resume may run from
// another directory).
func normalSpec(spec jobs.Spec) jobs.Spec {
	spec = spec.WithDefaults()
	if wd, err := os.Getwd(); err == nil {
		spec = spec.AbsPaths(wd)
	}
	return spec
}

// specDiff names the lines of the two jobs' files that differ ("" none).
func specDiff(a, b jobs.Spec) (string, error) {
	fa, err := jobs.FormatSpec(a)
	if err != nil {
		return "", err
	}
	fb, err := jobs.FormatSpec(b)
	if err != nil {
		return "", err
	}
	la, lb := strings.Split(string(fa), "\n"), strings.Split(string(fb), "\n")
	var out []string
	for _, l := range lb {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") && !slices.Contains(la, l) {
			out = append(out, strings.TrimSpace(l))
		}
	}
	for _, l := range la {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") && !slices.Contains(lb, l) {
			out = append(out, "no "+strings.TrimSpace(l))
		}
	}
	return strings.Join(out, ", "), nil
}

// planSpec is spec on the recorded nodes, in their rank order: the plan
// the checkpoints were taken of. A rank a recovery had put on a second
// worker ("alpha-1#2", recovery_second.go) goes to its host when no other
// rank is there, else to a host of inv no rank is on (its cluster's
// first): a resume starts one worker per host. None free: the resume is
// refused, saying so.
func (r *resumeState) planSpec(spec jobs.Spec, inv *inventory.Inventory) (jobs.Spec, error) {
	ranks := slices.Clone(r.m.Ranks)
	used := map[string]bool{}
	for _, name := range ranks {
		used[name] = true
	}
	for i, name := range ranks {
		host := hostName(name)
		if host == name {
			continue
		}
		to, ok := host, !used[host]
		if !ok {
			to, ok = freeOf(inv, used, host)
		}
		if !ok {
			return spec, fmt.Errorf("%w %s: rank %d was on a second worker on %s (%s), and the inventory has no host free to take it", ErrResume, r.m.ID, i, host, name)
		}
		ranks[i], used[to] = to, true
	}
	spec.Nodes, spec.Groups = jobs.NodeSelection{Hosts: ranks}, nil
	return spec, nil
}

// freeOf returns a host of inv not in used, of host's cluster first.
func freeOf(inv *inventory.Inventory, used map[string]bool, host string) (string, bool) {
	cluster := ""
	for _, h := range inv.Hosts() {
		if h.Name == host {
			cluster = h.Cluster
		}
	}
	var other string
	for _, h := range inv.Hosts() {
		switch {
		case used[h.Name] || strings.Contains(h.Name, secondSep):
		case h.Cluster == cluster:
			return h.Name, true
		case other == "":
			other = h.Name
		}
	}
	return other, other != ""
}

// runManifest is Run's part of a run's manifest: written as the run
// starts, marked or removed as it ends; and its control socket's stop.
type runManifest struct {
	m       *Manifest
	dataDir string
	stop    func()
}

// serve opens the run's control socket (drain_socket.go), with a Control
// of its own when the caller gave none.
func (r *runManifest) serve(s *submission, rc *recoverer) *runManifest {
	if rc.opt.Control == nil {
		rc.opt.Control = NewControl()
		s.opt.Control = rc.opt.Control
	}
	r.stop = serveControl(r.dataDir, r.m.ID, rc.opt.Control, s.logf)
	if s.joins != nil {
		s.joins.noted = func(w *deploy.Worker) { r.noteJoined(s, w) }
	}
	return r
}

// noteJoined records a joined worker in the manifest, so that a resume
// stops it if the console dies (called by the event loop; the manifest is
// written by the run's start and end alone besides).
func (r *runManifest) noteJoined(s *submission, w *deploy.Worker) {
	n := len(r.m.Workers)
	if r.m.noteWorkers([]*deploy.Worker{w}); len(r.m.Workers) == n {
		return // not a local process
	}
	if err := r.m.save(r.dataDir); err != nil {
		s.logf(w.Host.Name, "the joined worker is not recorded for a resume: %v", err)
	}
}

// startManifest records the run of s in the data directory (when its
// checkpoints are on), or takes over the resumed run's manifest: the first
// attempt then restarts from the checkpoints and its report counts the
// console's loss as a recovery. nil: nothing recorded (the log says why
// when it should have been).
func startManifest(in jobs.Spec, s *submission, rc *recoverer, res *resumeState, workers []*deploy.Worker) *runManifest {
	if rc.dir == "" {
		return nil
	}
	dataDir, err := jobs.DataDir(rc.opt.StoreDir)
	if err != nil {
		s.logf("", "the run is not recorded for a resume: %v", err)
		return nil
	}
	if res == nil {
		m, err := newManifest(normalSpec(in), jobs.NewRecordID(time.Now()), rc.key, rc.dir, s.plan.Ranks, workers)
		if err == nil {
			err = m.save(dataDir)
		}
		if err != nil {
			s.logf("", "the run is not recorded for a resume: %v", err)
			return nil
		}
		s.recordID = m.ID
		s.logf("", "run %s: if the console is lost, gridtui run --resume %s continues it from its checkpoints", m.ID, m.ID)
		return (&runManifest{m: m, dataDir: dataDir}).serve(s, rc)
	}
	m := res.m
	rc.dir, rc.key = m.Dir, m.Key
	s.ckptKey = m.Key
	cp := res.from
	cp.Dir, cp.Every, cp.Auto, cp.First, cp.Run = m.Dir, rc.spec.Resilience.Every(), rc.spec.Resilience.Auto(), rc.opt.FirstCheckpoint, m.Key
	s.ckpt = &cp
	rec := jobs.Recovery{Node: "console", Cause: m.State(), Rank: -1, To: "the same nodes", How: resumedHow(m.ID), Detected: res.at}
	what := "every part from its newest checkpoint"
	switch {
	case !cp.Latest && cp.Restore == 0:
		rec.FromStart, what = true, "every part from the start (no checkpoint yet)"
	case !cp.Latest:
		rec.From = cp.Restore
		what = fmt.Sprintf("every part from iteration %d", cp.Restore)
	}
	s.recoveries = append(s.recoveries, rec)
	host, _ := os.Hostname()
	m.Resumes++
	m.Console, m.ConsolePID, m.Ended, m.Workers = host, os.Getpid(), "", nil
	m.noteWorkers(workers)
	if err := m.save(dataDir); err != nil {
		s.logf("", "the resumed run is not recorded for another resume: %v", err)
	}
	s.logf("", "resumed run %s (%s): %s", m.ID, rec.Cause, what)
	return (&runManifest{m: m, dataDir: dataDir}).serve(s, rc)
}

// end removes the manifest of a run that finished, or marks one a resume
// can continue: interrupted, or lost to a loss it did not recover from.
func (r *runManifest) end(s *submission, rep *Report, err error) {
	if r == nil {
		return
	}
	r.stop()
	if err != nil && (errors.Is(err, ErrRunAborted) || isLoss(s)) {
		cause := "interrupted"
		if rep != nil && rep.Cause != "" {
			cause = rep.Cause
			if !strings.HasPrefix(cause, "interrupted") {
				cause = "ended by a loss it did not recover from: " + cause
			}
		}
		r.m.Ended = cause
		r.m.Ranks = s.plan.Ranks // where the parts were last (a recovery may have moved some)
		if serr := r.m.save(r.dataDir); serr == nil {
			s.logf("", "resume it: gridtui run --resume %s", r.m.ID)
			return
		}
	}
	os.Remove(manifestPath(r.dataDir, r.m.ID))
}
