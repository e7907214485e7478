package predict

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"
)

// BSPFile is the file, in the results store's directory, that keeps the
// BSP cost model's parameters the last `gridtui bench bsp` measured.
const BSPFile = "bsp-params.json"

// BSPNetwork is g and l measured over one network (or over every pair of
// the processes: AllPairs), with their 95 % confidence half-widths.
type BSPNetwork struct {
	G    float64 `json:"g_seconds_per_byte"`
	GCI  float64 `json:"g_ci"`
	L    float64 `json:"l_seconds"`
	LCI  float64 `json:"l_ci"`
	Pair int     `json:"pairs,omitempty"` // pairs of process 0 over this network (0 for AllPairs)
}

// AllPairs is the key of BSPParams.Networks for the fit over every pair.
const AllPairs = "all pairs"

// BSPParams are the BSP cost model's parameters measured on a set of
// nodes (bspbench's method): r, and g and l per network label ("unix",
// "ethernet", "infiniband"…) and over all pairs. A superstep with W flops
// of computation and an h-relation of h bytes costs W/r + h·g + l.
type BSPParams struct {
	Measured time.Time             `json:"measured"`
	Nodes    []string              `json:"nodes"`
	R        float64               `json:"r_flops"`
	Networks map[string]BSPNetwork `json:"networks"`
}

// Superstep returns the predicted time of a superstep of w flops and an
// h-relation of h bytes whose pairs use network (AllPairs when it has no
// figures of its own; false when neither has).
func (p BSPParams) Superstep(w float64, h int64, network string) (time.Duration, bool) {
	n, ok := p.Networks[network]
	if !ok {
		n, ok = p.Networks[AllPairs]
	}
	if !ok || p.R <= 0 {
		return 0, false
	}
	s := w/p.R + float64(h)*math.Max(n.G, 0) + math.Max(n.L, 0)
	return time.Duration(s * float64(time.Second)), true
}

// SaveBSP writes p to dir's BSPFile (atomically: a temporary file renamed).
func SaveBSP(dir string, p BSPParams) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return fmt.Errorf("predict: bsp parameters: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("predict: bsp parameters: %w", err)
	}
	f, err := os.CreateTemp(dir, BSPFile+".*")
	if err != nil {
		return fmt.Errorf("predict: bsp parameters: %w", err)
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, BSPFile))
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("predict: bsp parameters in %s: %w", dir, err)
	}
	return nil
}

// LoadBSP reads dir's BSPFile; a missing file is os.ErrNotExist (wrapped).
func LoadBSP(dir string) (BSPParams, error) {
	var p BSPParams
	path := filepath.Join(dir, BSPFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return p, fmt.Errorf("predict: bsp parameters: %w", err)
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("predict: bsp parameters %s: %w", path, err)
	}
	if p.Networks == nil {
		return p, fmt.Errorf("predict: bsp parameters %s: %w", path, errors.New("no networks"))
	}
	return p, nil
}
