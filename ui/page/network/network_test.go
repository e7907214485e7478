package network

import (
	"errors"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/grid"
	"github.com/gridtui/gridtui/ui/common"
	"github.com/gridtui/gridtui/ui/internal/uitest"
)

// TestNetworkPage: the page alone shows the Htable, p asks the root to
// probe, enter opens a node whole and esc closes it; the golden renderings
// with a job's pairs are the ui package's TestNetworkView.
func TestNetworkPage(t *testing.T) {
	c := uitest.Common(80, 24)
	v := New(c)
	h, err := grid.Htable(inventory.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	v.SetHtable(h, nil)
	out := v.View()
	uitest.CheckSize(t, c, out)
	if !strings.Contains(ansi.Strip(out), "alpha-1") {
		t.Errorf("the Htable does not list alpha-1:\n%s", ansi.Strip(out))
	}
	if _, cmd := v.Update(uitest.KeyPress("p")); cmd == nil {
		t.Error("p asks nothing")
	} else if _, ok := cmd().(common.ProbeRequestMsg); !ok {
		t.Error("p does not ask the root to probe")
	}
	v.Update(uitest.KeyPress("enter"))
	if !v.Paging() || !strings.Contains(ansi.Strip(v.View()), "Node alpha-1") {
		t.Errorf("enter does not open the node:\n%s", ansi.Strip(v.View()))
	}
	v.Update(uitest.KeyPress("esc"))
	if v.Paging() {
		t.Error("esc does not close the node")
	}
	v.SetHtable(nil, errors.New("probe: bad node"))
	if !strings.Contains(ansi.Strip(v.View()), "probe: bad node") {
		t.Errorf("the error is not shown:\n%s", ansi.Strip(v.View()))
	}
}
