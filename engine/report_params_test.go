package engine

import (
	"testing"

	"github.com/gridtui/gridtui/jobs"
)

// TestRecordParams: a run of an application other than the obstacle
// problem is recorded with its own n and ε (defaults included) and its
// checked parameters, not with the obstacle spec's defaults.
func TestRecordParams(t *testing.T) {
	var job jobs.RunConfig
	sp := jobs.Spec{App: "poisson", Params: map[string]string{"n": "16"}}
	job.N, job.Eps = 48, 1e-8 // what the default job carries
	recordParams(&job, sp)
	if job.N != 16 || job.Eps != 1e-8 {
		t.Errorf("recorded n = %d, ε = %g; want the application's 16 and its default 1e-08", job.N, job.Eps)
	}
	if job.Params["n"] != "16" || job.Params["eps"] == "" || len(job.Params) < 3 {
		t.Errorf("recorded params %v, want every checked parameter (n, eps, blocks…)", job.Params)
	}
	// sparse declares eps but no n: its record has n = 0, not the obstacle
	// default a job from the command line carries.
	var sparse jobs.RunConfig
	ssp := jobs.Spec{App: "sparse", Params: map[string]string{"matrix": "/m.mtx"}}
	sparse.N, sparse.Eps = 48, 1e-8
	recordParams(&sparse, ssp)
	if sparse.N != 0 || sparse.Eps != 1e-10 {
		t.Errorf("sparse recorded n = %d, ε = %g; want 0 and its default 1e-10", sparse.N, sparse.Eps)
	}
	// The obstacle problem is recorded like every application: its
	// parameters, n and ε from them.
	obstacle := jobs.RunConfig{}
	recordParams(&obstacle, jobs.Spec{App: "obstacle", Params: map[string]string{"n": "20"}})
	if obstacle.Params["n"] != "20" || obstacle.N != 20 || obstacle.Eps != 1e-8 {
		t.Errorf("obstacle record: %+v", obstacle)
	}
}
