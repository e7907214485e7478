package slurm

import (
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy/sched"
)

func FuzzSlurmCPUs(f *testing.F) {
	f.Add("2(x3),1", 4)
	f.Add("64", 1)
	f.Add("1(x", 2)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > 1000 {
			return
		}
		cpus, err := slurmCPUs(s, n)
		if err == nil && s != "" && len(cpus) != n {
			t.Fatalf("%q for %d nodes gave %d", s, n, len(cpus))
		}
	})
}

func TestSlurmStatus(t *testing.T) {
	out := []byte("42|PENDING|Resources|gp\n--\n40|gp\n41|other\n42|gp\n43|gp\n")
	p, err := slurm{}.StatusOf("42", out)
	if err != nil || p != (sched.Pending{Job: "42", State: "PENDING", Reason: "Resources", Position: 2}) {
		t.Fatalf("statusOf = %+v, %v", p, err)
	}
	if got, want := p.String(), "job 42 pending (Resources), position 2 in the queue"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if _, err := (slurm{}).StatusOf("7", []byte("--\n")); err == nil {
		t.Error("statusOf accepted squeue output without the job")
	}
	for line, id := range map[string]string{
		"salloc: Pending job allocation 123":               "123",
		"salloc: job 123 queued and waiting for resources": "123",
		"salloc: Granted job allocation 9":                 "9",
		"salloc: error: invalid partition specified":       "",
	} {
		if got := (slurm{}).JobID(line); got != id {
			t.Errorf("jobID(%q) = %q, want %q", line, got, id)
		}
	}
}

func TestSlurmAllocCommand(t *testing.T) {
	cmd := slurm{}.AllocCommand("n1,n2", 4, sched.BatchOptions{Partition: "gp", Account: "proj", TimeLimit: 90 * time.Second, Options: []string{"--qos=short"}})
	for _, want := range []string{"salloc ", "--nodelist='n1,n2'", "--nodes=2", "--cpus-per-task=4", "--partition='gp'", "--account='proj'", "--time=2", "'--qos=short'", sched.AllocLine} {
		if !strings.Contains(cmd, want) {
			t.Errorf("allocCommand lacks %q: %s", want, cmd)
		}
	}
}
