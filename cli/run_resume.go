package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
)

// resumeRun continues run f.sw.resume from its checkpoints (gridtui run
// --resume RUN, docs/FAILURES.md): its job is the recorded one; flags that
// change it are refused, as is an unknown run, a finished one or one
// still running (usage errors, exit 2).
func resumeRun(cmd *cobra.Command, f *runFlags, inv *inventory.Inventory) error {
	set := cmd.Flags().Changed
	if len(f.sw.sweeps) > 0 || len(f.sw.files) > 0 || set("max-parallel") || set("retries") || set("format") || set("max-instances") || f.sw.dryRun {
		return usageErrorf("gridtui run: --resume %s continues a run, not a sweep: give no sweep flags", f.sw.resume)
	}
	m, err := engine.LoadManifest("", f.sw.resume)
	if err != nil {
		if errors.Is(err, engine.ErrResume) {
			return usageError(fmt.Errorf("gridtui run: %w", err))
		}
		return err
	}
	base, err := m.Spec()
	if err != nil {
		return fmt.Errorf("gridtui run: --resume %s: %w", m.ID, err)
	}
	spec, err := buildSpecFrom(cmd, f, inv, base)
	if err != nil {
		return err
	}
	if spec.Sweep != nil {
		return usageErrorf("gridtui run: --resume %s continues a run, not a sweep", m.ID)
	}
	return runOne(cmd, f, inv, spec, m.ID)
}

// writeResumable lists the runs of the data directory dir that
// gridtui run --resume can continue (nothing when there are none).
func writeResumable(w io.Writer, dir string) error {
	ms, err := engine.Resumable(dir)
	if err != nil || len(ms) == 0 {
		return err
	}
	fmt.Fprintf(w, "\nruns that can be resumed (gridtui run --resume ID):\n")
	for _, m := range ms {
		from, err := m.Checkpoint()
		if err != nil {
			from = "not resumable: " + err.Error()
		} else {
			from = "from " + from
		}
		if m.Running() {
			from = "still running"
		}
		spec, _ := m.Spec()
		fmt.Fprintf(w, "  %s  %s %s on %d nodes, started %s: %s; %s\n", m.ID, spec.App, spec.Scheme, len(m.Ranks),
			m.Started.Local().Format(time.DateTime), m.State(), from)
	}
	return nil
}

// resumableIDs are the runs of the default data directory that can be
// resumed, starting with in (shell completion).
func resumableIDs(in string) []string {
	ms, _ := engine.Resumable("")
	var out []string
	for _, m := range ms {
		if strings.HasPrefix(m.ID, in) && !m.Running() {
			out = append(out, m.ID)
		}
	}
	return out
}
