package engine

import (
	"testing"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/jobs"
)

// TestPlanHelloCores: a job of cores = 0 (each host's cores) on hosts the
// inventory gives no core count plans the cores their workers' hellos
// reported, not one; a host whose cores the inventory states keeps them,
// and the inventory itself is not changed.
func TestPlanHelloCores(t *testing.T) {
	inv, err := inventory.Parse("sites.toml", []byte(`
[[site]]
name = "hpc"
  [[site.cluster]]
  name = "cpu"
  hosts = "n[1-2]"
  [[site.cluster]]
  name = "big"
  hosts = "b1"
  cores = 4
`))
	if err != nil {
		t.Fatal(err)
	}
	var workers []*deploy.Worker
	for i, h := range inv.Hosts() {
		workers = append(workers, &deploy.Worker{Host: h, Hello: deploy.Hello{Node: h.Name, Host: h.Name, Cores: 8 + i}})
	}
	spec := jobs.DefaultSpec()
	spec.Cores, spec.Nodes = 0, jobs.NodeSelection{}
	spec, err = admit(spec, inv)
	if err != nil {
		t.Fatal(err)
	}
	p := &Plan{Ranks: []string{"n1", "n2", "b1"}}
	if err := p.planCores(spec, withHelloCores(inv, workers)); err != nil {
		t.Fatal(err)
	}
	if want := []int{8, 9, 4}; p.Cores[0] != want[0] || p.Cores[1] != want[1] || p.Cores[2] != want[2] {
		t.Errorf("cores %v, want %v (the hellos' for n1 and n2, the inventory's for b1)", p.Cores, want)
	}
	if inv.Hosts()[0].Cores != 0 {
		t.Errorf("the inventory was changed: n1 has %d cores", inv.Hosts()[0].Cores)
	}
}
