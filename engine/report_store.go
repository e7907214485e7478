package engine

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine/worker"
	"github.com/gridtui/gridtui/jobs"
)

// maxResidualSamples bounds the residual history kept for a run; beyond it
// every other sample is dropped (the history keeps its shape).
const maxResidualSamples = 2048

// gainCurve is a single-node reference run from the results store: its
// wall time t1 and its residual history, for the live computing-gain
// estimate.
type gainCurve struct {
	t1   time.Duration
	eps  float64
	hist []jobs.ResidualSample
}

// gain estimates C_g live: the time the single-node run needed to reach
// sigma, divided by elapsed. A σ below the reference's last sample but
// converged (below ε) is where the reference stood at its end, t1: the
// estimate then reads as the report's t1/ts. 0 when the reference never got
// there.
func (g *gainCurve) gain(sigma float64, elapsed time.Duration) float64 {
	if elapsed <= 0 {
		return 0
	}
	for _, p := range g.hist {
		if float64(p.Sigma) <= sigma {
			return p.Seconds / elapsed.Seconds()
		}
	}
	if sigma < g.eps {
		return g.t1.Seconds() / elapsed.Seconds()
	}
	return 0
}

// loadResults opens the results store; a missing store is empty.
func loadResults(dir string) (*jobs.Results, error) {
	d, err := jobs.DataDir(dir)
	if err != nil {
		return nil, err
	}
	return jobs.Load(d)
}

// loadGainCurve finds the single-node reference of the problem instance in
// for a run of grid configuration grid on inventory inv, or nil.
func loadGainCurve(dir string, in jobs.Instance, inv, grid string) *gainCurve {
	res, err := loadResults(dir)
	if err != nil || res == nil {
		return nil
	}
	rec, ok := res.SingleNodeReferenceOf(in, inv, grid)
	if !ok || len(rec.Residuals) == 0 {
		return nil
	}
	return &gainCurve{t1: rec.Wall(), eps: in.Eps, hist: rec.Residuals}
}

// instance is the problem instance the run's record will name (its
// application and checked parameters), which t1 is looked up by.
func (s *submission) instance() jobs.Instance {
	c := jobs.RunConfig{App: s.spec.App}
	recordParams(&c, s.spec)
	return c.Instance()
}

// setGain computes the run's computing gain C_g = t1/ts (GRIDHPC eq. 2)
// the way Table IV will once rec, this run's record, is in the store:
// t1 is jobs.Results.SingleNodeReference over the stored runs and this
// one, so a single-node run faster than any before is its own t1 (gain 1).
func setGain(rep *Report, rec jobs.RunRecord, dir string) {
	res, err := loadResults(dir)
	if err != nil || res == nil {
		res = &jobs.Results{}
	}
	res.Records = append(res.Records, rec)
	ref, ok := res.SingleNodeReferenceOf(rec.Job.Instance(), rec.Job.Inventory, rec.Job.Grid)
	if !ok || rep.Wall <= 0 {
		return
	}
	rep.T1, rep.Gain, rep.T1Self = ref.Wall(), ref.WallSeconds/rep.Wall.Seconds(), ref.ID == rec.ID
}

// sampleResidual adds the run's global σ to its history.
func (s *submission) sampleResidual(now time.Time) {
	sigma, it := 0.0, 0
	for _, st := range s.statuses {
		sigma = max(sigma, st.Sigma)
		it = max(it, st.Iteration)
	}
	if sigma == 0 {
		return
	}
	if k := len(s.residuals); k > 0 && float64(s.residuals[k-1].Sigma) == sigma {
		return
	}
	if len(s.residuals) >= maxResidualSamples {
		kept := s.residuals[:0]
		for i := 0; i < len(s.residuals); i += 2 {
			kept = append(kept, s.residuals[i])
		}
		s.residuals = kept
	}
	s.residuals = append(s.residuals, jobs.ResidualSample{Iteration: it, Seconds: now.Sub(s.start).Seconds(), Sigma: jobs.Float(sigma)})
}

// recordRun appends the run's record to the results store.
func recordRun(rep *Report, rec *jobs.RunRecord, opt RunOptions) error {
	dir, err := jobs.DataDir(opt.StoreDir)
	if err != nil {
		return err
	}
	if err := jobs.Append(dir, rec); err != nil {
		return fmt.Errorf("engine: record run: %w", err)
	}
	rep.RecordID = rec.ID
	return nil
}

// runRecord is the run as the results store keeps it, failed runs too,
// with its id already chosen.
func runRecord(rep *Report, s *submission) jobs.RunRecord {
	id := s.recordID
	if id == "" {
		id = jobs.NewRecordID(rep.Started)
	}
	rec := jobs.RunRecord{ID: id, Time: rep.Started, Machine: jobs.LocalMachine(),
		WallSeconds: rep.Wall.Seconds(), Residuals: s.residuals, Outcome: rep.Outcome, Reason: rep.Cause,
		Recoveries: rep.Recoveries, WorkerRun: worker.RunTag(s.run), Supersteps: rep.Supersteps}
	if rep.FailedNode != "" {
		rec.Reason = fmt.Sprintf("node %s: %s", rep.FailedNode, rep.Cause)
	}
	var clusters []string
	cores := 0
	for _, n := range rep.Nodes {
		node, _ := s.plan.Htable.Node(n.Node)
		nr := jobs.NodeRecord{Name: n.Node, Host: node.Host, Cluster: node.Cluster, Rank: n.Rank, Cores: n.Cores,
			Iterations: n.Iterations, Sigma: jobs.Float(n.Sigma), ComputeSeconds: n.Compute.Seconds(),
			SendSeconds: n.Send.Seconds(), WaitSeconds: n.Wait.Seconds(), PeakRSS: n.PeakRSS, Err: n.Err,
			Stats: map[string]float64{}, Trace: n.Trace}
		for _, t := range n.Traffic {
			nr.Stats["messages."+t.Network] = float64(t.Messages)
			nr.Stats["bytes."+t.Network] = float64(t.Bytes)
			nr.Stats["skipped."+t.Network] = float64(t.Skipped)
		}
		rec.Nodes = append(rec.Nodes, nr)
		clusters = append(clusters, node.Cluster)
		cores += n.Cores
	}
	sp := rep.Spec
	rec.Job = jobs.RunConfig{Name: sp.Name, App: sp.App, MaxIter: sp.MaxIter,
		Scheme: sp.Scheme, Detector: sp.Detector, Nodes: len(rep.Nodes), Cores: cores,
		Grid: jobs.GridLabel(clusters), Clusters: uniq(clusters), Inventory: s.inventory}
	recordParams(&rec.Job, sp)
	if rep.Checked {
		r := jobs.Float(rep.Residual)
		rec.TrueResidual = &r
		rec.ResidualReported = rep.ResidualReported
		for _, c := range rep.Checks {
			rec.Checks = append(rec.Checks, jobs.CheckRecord{Name: c.Name, Value: jobs.Float(c.Value), OK: c.OK, Text: c.Text})
		}
	}
	return rec
}

// gridLabel is the run's grid configuration (jobs.GridLabel of its nodes'
// clusters).
func (s *submission) gridLabel() string {
	clusters := make([]string, 0, len(s.plan.Ranks))
	for _, name := range s.plan.Ranks {
		node, _ := s.plan.Htable.Node(name)
		clusters = append(clusters, node.Cluster)
	}
	return jobs.GridLabel(clusters)
}

// InventoryKey is the jobs.RunConfig.Inventory of runs on inv: the results
// of different inventories are never compared.
func InventoryKey(inv *inventory.Inventory) string {
	if inv == nil || inv.Source == inventory.EmbeddedSource {
		return jobs.InventoryEmbedded
	}
	if abs, err := filepath.Abs(inv.Source); err == nil {
		return abs
	}
	return inv.Source
}

func uniq(s []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range s {
		if x != "" && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// recordParams records the job's exact sweep count (Iterations) and an
// application's checked parameters (defaults
// included) with its run, and takes the problem size n and tolerance ε of
// the record from them when the application declares them: an application
// that declares no n (sparse, exec) records n = 0.
func recordParams(job *jobs.RunConfig, sp jobs.Spec) {
	job.Iterations = sp.Iterations
	_, v, err := sp.WithDefaults().Application()
	if err != nil {
		return // the run was admitted, so this does not happen
	}
	job.Params = v.Encode()
	job.N, job.Eps = 0, 0
	if v.Declares("n", gridapp.Int) {
		job.N = v.Int("n")
	}
	if v.Declares("eps", gridapp.Float) {
		job.Eps = v.Float("eps")
	}
}
