package study

import (
	"fmt"
	"math"
	"strings"

	"github.com/gridtui/gridtui/jobs"
)

// OrderCheck compares the schemes' gains of one row of Table IV for one grid
// configuration against the paper's ordering: async ≥ hybrid ≥ sync
// (GRIDHPC Sec. VI, Tables III–VI; hybrid sits between the two).
type OrderCheck struct {
	N     int
	Cores int
	Grid  string
	// Gains per scheme; NaN when the scheme was not run (or failed).
	Sync, Async, Hybrid float64
	// Holds is true when every pair present is in the paper's order.
	Holds bool
	// Compared counts the schemes present (a check needs at least two).
	Compared int
}

// MultiCluster reports whether the check's grid spans several clusters.
func (c OrderCheck) MultiCluster() bool { return strings.Contains(c.Grid, "+") }

// String is one line of the verdict, e.g.
// "n=64, 8 cores, alpha+beta: async 3.10 ≥ hybrid 2.50 ≥ sync 1.90 — holds".
func (c OrderCheck) String() string {
	var parts []string
	for _, p := range []struct {
		name string
		v    float64
	}{{"async", c.Async}, {"hybrid", c.Hybrid}, {"sync", c.Sync}} {
		if !math.IsNaN(p.v) {
			parts = append(parts, fmt.Sprintf("%s %.2f", p.name, p.v))
		}
	}
	verdict := "holds"
	if !c.Holds {
		verdict = "does NOT hold"
	}
	ratio := ""
	if !math.IsNaN(c.Async) && !math.IsNaN(c.Sync) {
		// Same t1 on both sides: the ratio of gains is t_sync/t_async, a
		// ratio of two runs measured back to back.
		ratio = fmt.Sprintf(" (async/sync %.2f×)", c.Async/c.Sync)
	}
	return fmt.Sprintf("n=%d, %d cores, %s: %s%s — %s", c.N, c.Cores, c.Grid, strings.Join(parts, " / "), ratio, verdict)
}

// CheckOrdering returns one check per row and grid configuration of a gain
// table where at least two schemes have a gain.
func CheckOrdering(gains jobs.Table) []OrderCheck {
	var out []OrderCheck
	var grids []string
	for _, c := range gains.Columns {
		if len(grids) == 0 || grids[len(grids)-1] != c.GridName() {
			grids = append(grids, c.GridName())
		}
	}
	for _, row := range gains.Rows {
		for _, g := range grids {
			c := OrderCheck{N: gains.N, Cores: row.Cores, Grid: g, Sync: math.NaN(), Async: math.NaN(), Hybrid: math.NaN()}
			for i, col := range gains.Columns {
				if col.GridName() != g || math.IsNaN(row.Cells[i]) {
					continue
				}
				switch col.Scheme {
				case jobs.Synchronous:
					c.Sync = row.Cells[i]
				case jobs.Asynchronous:
					c.Async = row.Cells[i]
				case jobs.Hybrid:
					c.Hybrid = row.Cells[i]
				default:
					continue
				}
				c.Compared++
			}
			if c.Compared < 2 {
				continue
			}
			c.Holds = inOrder(c.Async, c.Hybrid) && inOrder(c.Hybrid, c.Sync) && inOrder(c.Async, c.Sync)
			out = append(out, c)
		}
	}
	return out
}

// inOrder reports hi ≥ lo, true when either is missing.
func inOrder(hi, lo float64) bool {
	return math.IsNaN(hi) || math.IsNaN(lo) || hi >= lo
}

// Verdict summarises checks: how many hold, on multi-cluster grids and on
// single clusters.
func Verdict(checks []OrderCheck) string {
	var multi, multiOK, single, singleOK int
	for _, c := range checks {
		if c.MultiCluster() {
			multi++
			if c.Holds {
				multiOK++
			}
		} else {
			single++
			if c.Holds {
				singleOK++
			}
		}
	}
	return fmt.Sprintf("paper's ordering (async ≥ hybrid ≥ sync in gain) holds in %d of %d multi-cluster configurations; async ≥ sync holds in %d of %d single-cluster configurations",
		multiOK, multi, singleOK, single)
}
