package network

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gridtui/gridtui/predict"
)

// WithBSP returns v showing p's g and l (nil: none).
func (v Model) WithBSP(p *predict.BSPParams) Model {
	v.bsp = p
	return v
}

// bspNote is the Htable title's note of the BSP cost model per network
// (`gridtui bench bsp`): " · BSP g, l (bench bsp MM-DD): NETWORK g ns/B l,
// …", the networks first, all pairs when there is nothing else.
func bspNote(p *predict.BSPParams) string {
	if p == nil || len(p.Networks) == 0 {
		return ""
	}
	var keys []string
	for k := range p.Networks {
		if k != predict.AllPairs && k != "self" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		keys = []string{predict.AllPairs}
	}
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		n := p.Networks[k]
		parts = append(parts, fmt.Sprintf("%s %.2g ns/B %v", k, 1e9*n.G, time.Duration(n.L*float64(time.Second)).Round(time.Microsecond)))
	}
	return fmt.Sprintf(" · BSP g, l (bench bsp %s): %s", p.Measured.Format("01-02"), strings.Join(parts, ", "))
}
