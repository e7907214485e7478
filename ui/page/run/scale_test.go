package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/ui/internal/uitest"
)

// TestRunViewScale is opt-in (GRIDTUI_SCALE_UI=256: the worker count): it
// runs the obstacle problem (beyond 256 workers, the poisson application)
// on that many real local workers, keeps every
// snapshot the run's telemetry produced, then replays them into the Run
// view and times each frame (the snapshot applied, then drawn), as the
// console does on its ≤ 10 Hz tick.
func TestRunViewScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("GRIDTUI_SCALE_UI"))
	if n < 2 {
		t.Skip("opt-in: set GRIDTUI_SCALE_UI to a worker count (e.g. 256)")
	}
	path := filepath.Join(t.TempDir(), "sites.toml")
	toml := fmt.Sprintf("locality = \"label\"\n[[site]]\nname = \"local\"\nlauncher = \"local\"\n"+
		"  [[site.cluster]]\n  name = \"alpha\"\n  nodes = %[1]d\n  cores = 1\n  ethernet_addr = \"127.16.64.10\"\n  fast_addr = \"127.18.64.10\"\n"+
		"  [[site.cluster]]\n  name = \"beta\"\n  nodes = %[1]d\n  cores = 1\n  ethernet_addr = \"127.20.34.20\"\n  fast_addr = \"127.22.34.20\"\n", n/2)
	if err := os.WriteFile(path, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	inv, err := inventory.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	spec := jobs.Spec{Name: "scale", App: "obstacle", Params: map[string]string{"n": "256", "eps": "1"}, Scheme: jobs.Asynchronous,
		Nodes: jobs.NodeSelection{Any: n}, Cores: 1, WallTime: 3 * time.Minute}
	if n > 256 {
		// An obstacle node needs a plane, and n ≥ 1024 does not fit in
		// memory here: the poisson application in 3-D blocks instead.
		spec.App = "poisson"
		spec.Params = map[string]string{"n": "128", "eps": "1e-3", "blocks": "auto"}
	}
	var mu sync.Mutex
	var snaps []engine.Snapshot
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	_, err = engine.Run(ctx, spec, engine.RunOptions{Inventory: inv, NoRecord: true, StoreDir: t.TempDir(),
		OnSnapshot: func(s engine.Snapshot) {
			mu.Lock()
			defer mu.Unlock()
			snaps = append(snaps, s)
		}})
	if err != nil {
		// Its telemetry is still real: time the frames all the same.
		t.Logf("run on %d workers: %v", n, err)
	}
	if len(snaps) == 0 {
		t.Fatal("no snapshot")
	}
	for _, sz := range uitest.Sizes {
		v := New(uitest.Common(sz.W, sz.H))
		v.Start(spec)
		var frames []time.Duration
		for _, s := range snaps {
			start := time.Now()
			v.ApplySnapshot(s)
			_ = v.View()
			frames = append(frames, time.Since(start))
		}
		slices.Sort(frames)
		t.Logf("SCALE run view %dx%d, %d workers: %d real snapshots, frame (snapshot + view) median %v, max %v",
			sz.W, sz.H, n, len(frames), frames[len(frames)/2].Round(time.Microsecond), frames[len(frames)-1].Round(time.Microsecond))
	}
}
