package compose

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
	_ "github.com/gridtui/gridtui/apps/poisson" // a second application: blocks with up to six neighbours
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/jobs"
)

// composePoisson is a composer switched to the Poisson application (enter
// on the Application field) with the hosts c0-1…c0-k of a big inventory.
func composePoisson(t *testing.T, c *Common, k int) Model {
	t.Helper()
	inv := bigInventory(128)
	var picks []string
	for i := 1; i <= k; i++ {
		picks = append(picks, fmt.Sprintf("c0-%d", i))
	}
	v := composeWith(c, inv, picks...)
	v.cursor[paneForm] = v.row(fApp)
	for v.field(fApp).Value != "poisson" {
		v.press("enter")
	}
	return v
}

// TestComposeApplications: the Application field lists every registered
// application, and the form shows the chosen one's declared parameters
// with their defaults (cycling back restores what was typed); the help line
// of a parameter field says its kind, range, default and help.
func TestComposeApplications(t *testing.T) {
	c := testCommon(160, 48)
	v := composeWith(c, inventory.Embedded())
	if got := v.field(fApp).Options; !slices.Equal(got, gridapp.Names()) {
		t.Fatalf("Application choices %v, want the registered %v", got, gridapp.Names())
	}
	v.param("n").Value = "40"
	v.cursor[paneForm] = v.row(fApp)
	for v.field(fApp).Value != "poisson" {
		v.press("enter")
	}
	app, _ := gridapp.Lookup("poisson")
	for _, p := range app.Params() {
		if f := v.param(p.Name); f == nil || f.Value != p.Default {
			t.Errorf("poisson's %s: field %+v, want its default %q", p.Name, f, p.Default)
		}
	}
	v.cursor[paneForm] = v.row(v.param("blocks").ID)
	if a := v.about(); !strings.Contains(a, "decomposition a×b×c") || !strings.Contains(a, "default auto") {
		t.Errorf("help line %q does not describe blocks", a)
	}
	v.cursor[paneForm] = v.row(fApp)
	for v.field(fApp).Value != "obstacle" {
		v.press("enter")
	}
	if got := v.param("n").Value; got != "40" {
		t.Errorf("back on obstacle, n = %q, want the 40 typed before", got)
	}
}

// TestComposePoisson: a Poisson job on 27 nodes in 3×3×3 blocks has the
// 54 face pairs of its blocks, the middle block six of them (before, Compose
// showed a chain of 26 pairs); every bad parameter is listed at once, as
// `gridtui run --app poisson --param` refuses them; a decomposition the
// application refuses is a problem; the job file saved carries [params]
// and loads back the same.
func TestComposePoisson(t *testing.T) {
	c := testCommon(160, 48)
	v := composePoisson(t, c, 27)
	v.param("blocks").Value = "3x3x3"
	v.validate()
	if p := v.Problems(); len(p) != 0 {
		t.Fatalf("problems %q", p)
	}
	if len(v.Pairs()) != 54 {
		t.Fatalf("%d pairs, want 54", len(v.Pairs()))
	}
	middle := v.chosen()[13].Name
	n := 0
	for _, p := range v.Pairs() {
		if p.A == middle || p.B == middle {
			n++
		}
	}
	if n != 6 {
		t.Errorf("the middle block %s is in %d pairs, want 6", middle, n)
	}

	v.param("n").Value, v.param("eps").Value, v.param("blocks").Value = "0", "x", "2x2x2"
	v.validate()
	probs := strings.Join(v.Problems(), "\n")
	for _, w := range []string{"n: 0 is outside 1…", `eps: "x" is not a finite number`} {
		if !strings.Contains(probs, w) {
			t.Errorf("problems\n%s\ndo not say %q", probs, w)
		}
	}
	v.param("n").Value, v.param("eps").Value = "12", "1e-6"
	v.validate()
	if probs := strings.Join(v.Problems(), "\n"); !strings.Contains(probs, "8 blocks for 27 nodes") {
		t.Errorf("blocks 2x2x2 on 27 nodes: problems %q", probs)
	}
	if !v.badFields[v.param("blocks").ID] || v.badFields[v.param("n").ID] {
		t.Errorf("blocks 2x2x2 on 27 nodes: fields marked ✗ %v, want blocks alone", v.badFields)
	}

	v.param("blocks").Value = "auto"
	v.validate()
	path := filepath.Join(t.TempDir(), "poisson.toml")
	s := v.Spec()
	if err := jobs.SaveSpec(path, s, ""); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "[params]") || strings.Contains(string(data), "[obstacle]") {
		t.Errorf("job file:\n%s\nwant [params] and no [obstacle]", data)
	}
	back, err := jobs.LoadSpec(path)
	if err != nil {
		t.Fatal(err)
	}
	w := composeWith(c, bigInventory(128))
	w.applySpec(back)
	if w.field(fApp).Value != "poisson" || w.param("n").Value != "12" || w.param("eps").Value != "1e-6" {
		t.Errorf("loaded back: app %s n %s eps %s", w.field(fApp).Value, w.param("n").Value, w.param("eps").Value)
	}
}

// manyParams is an application declaring more parameters than an 80×24
// form shows: the form scrolls to the cursor.
type manyParams struct{ gridapp.Application }

func (manyParams) Params() []gridapp.Param {
	var ps []gridapp.Param
	for i := range 14 {
		ps = append(ps, gridapp.IntParam(fmt.Sprintf("p%d", i), i, 0, 100, "a parameter"))
	}
	return ps
}

func init() { gridapp.Register("zz-many", manyParams{}) }

// TestComposeFormScrolls: with an application of 14 parameters the form is
// taller than an 80×24 screen; moving to Start run scrolls it into view,
// and the edit cursor and clicks follow the scroll.
func TestComposeFormScrolls(t *testing.T) {
	c := testCommon(80, 24)
	v := composeWith(c, inventory.Embedded())
	v.cursor[paneForm] = v.row(fApp)
	for v.field(fApp).Value != "zz-many" {
		v.press("enter")
	}
	v.press("end")
	out := ansiStrip(v.View())
	if !strings.Contains(out, "› ▶ Start run") {
		t.Fatalf("Start run is not on screen with the cursor on it:\n%s", out)
	}
	if strings.Contains(out, "Application") {
		t.Errorf("the form did not scroll:\n%s", out)
	}
	v.press("up", "up", "up") // Detector… Cores per node: a text field
	v.press("enter")
	cur := v.editCursor()
	lines := strings.Split(ansiStrip(v.View()), "\n")
	if cur == nil || !strings.HasPrefix(strings.TrimLeft(lines[cur.Position.Y], "› "), "Cores per node") {
		t.Fatalf("edit cursor %+v is not on the Cores per node row:\n%s", cur, strings.Join(lines, "\n"))
	}
}

// TestComposeNameFollowsApp: a job name still automatic ("default", then
// the application's own) follows the Application field; a name the user
// typed never changes.
func TestComposeNameFollowsApp(t *testing.T) {
	c := testCommon(160, 48)
	v := composeWith(c, inventory.Embedded())
	if got := v.field(fName).Value; got != "default" {
		t.Fatalf("new form's name %q, want default", got)
	}
	v.cursor[paneForm] = v.row(fApp)
	for v.field(fApp).Value != "poisson" {
		v.press("enter")
		if got, app := v.field(fName).Value, v.field(fApp).Value; got != app {
			t.Fatalf("on %s the automatic name is %q, want %q", app, got, app)
		}
	}
	if s := v.Spec(); s.Name != "poisson" || s.App != "poisson" {
		t.Errorf("spec name %q app %q, want poisson for both", s.Name, s.App)
	}
	v.field(fName).Value = "my-cube"
	for range len(v.field(fApp).Options) + 1 {
		v.press("enter")
		if got := v.field(fName).Value; got != "my-cube" {
			t.Fatalf("on %s the typed name became %q", v.field(fApp).Value, got)
		}
	}
}
