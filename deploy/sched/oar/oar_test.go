package oar

import (
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy/sched"
)

// oarstat's output (OAR 2.5, Debian bookworm) for a job waiting behind
// another, and the table of unfinished jobs.
const oarstatWaiting = `Job_Id: 12
    job_array_id = 12
    name = gridtui
    owner = alice
    state = Waiting
    wanted_resources = -l "{type = 'default'}/network_address=1,walltime=0:5:0"
    queue = default
    message = R=2,W=0:5:0,J=B,N=gridtui (Karma=0.000,quota_ok)
    scheduledStart = 2026-11-28 06:14:08

--
Job id    S User     Duration   System message
--------- - -------- ---------- ------------------------------------------------
10        R bob         0:01:17 R=2,W=0:10:0,J=B,N=holder (Karma=0.000,quota_ok)
11        W bob         0:00:00 R=2,W=0:10:0,J=B,N=other (Karma=0.000,quota_ok)
12        W alice       0:00:00 R=2,W=0:5:0,J=B,N=gridtui (Karma=0.000,quota_ok)
`

func TestOARStatus(t *testing.T) {
	p, err := oar{}.StatusOf("12", []byte(oarstatWaiting))
	if err != nil {
		t.Fatal(err)
	}
	if p.State != "Waiting" || p.Position != 2 || !strings.HasPrefix(p.Reason, "R=2,W=0:5:0") {
		t.Errorf("got %+v", p)
	}
	if s := p.String(); !strings.Contains(s, "job 12 waiting") || !strings.Contains(s, "position 2 in the queue") {
		t.Errorf("shown as %q", s)
	}
	if _, err := (oar{}).StatusOf("7", []byte("\n--\n")); err == nil {
		t.Error("no job: no error")
	}
}

func TestOARCommands(t *testing.T) {
	if id := (oar{}).JobID("OAR_JOB_ID=1817"); id != "1817" {
		t.Errorf("job id %q", id)
	}
	cmd := oar{}.AllocCommand("graphene-[1-2]", 4, sched.BatchOptions{Partition: "production", TimeLimit: 90 * time.Minute, Properties: "gpu='YES'", Options: []string{"-t", "besteffort"}})
	for _, want := range []string{"oarsub -n gridtui", "nodes=2/core=4,walltime=1:30:00", "(gpu=", "network_address IN (", "graphene-1", "-q ", "production", "besteffort", sched.AllocLine, "oardel"} {
		if !strings.Contains(cmd, want) {
			t.Errorf("alloc command lacks %q:\n%s", want, cmd)
		}
	}
	if s := (oar{}).StepCommand("12", "n1", "cd work && exec ./gridtui worker"); s != "OAR_JOB_ID=12 oarsh 'n1' 'cd work && exec ./gridtui worker'" {
		t.Errorf("step %q", s)
	}
}
