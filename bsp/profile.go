package bsp

import (
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// ProfileGroups bounds the groups a Profile keeps, whatever the run's
// length.
const ProfileGroups = 64

// Profile is one process's supersteps for prediction (W + h·g + l),
// bounded: up to ProfileGroups groups of consecutive supersteps, each
// with their computation and h-relations summed. While the run has at
// most ProfileGroups supersteps each group is one superstep; beyond, the
// groups are merged by pairs and each then takes twice as many. Every
// process of a run records the same sequence of Adds (one per barrier the
// workers see), so their groups line up and MaxGroups can combine them.
type Profile struct {
	width  int // Adds per group: a power of 2
	fill   int // Adds in the last group
	groups []gridapp.SuperstepGroup
}

// Add records one barrier: n supersteps (more than 1 when supersteps
// ended in shared memory before it), the computation w since the previous
// one and the h-relation h (max(bytes out, bytes in)).
func (p *Profile) Add(n int, w time.Duration, h int64) {
	if p.width == 0 {
		p.width = 1
	}
	if len(p.groups) == 0 || p.fill == p.width {
		if len(p.groups) == ProfileGroups {
			p.halve()
		}
		p.groups, p.fill = append(p.groups, gridapp.SuperstepGroup{}), 0
	}
	g := &p.groups[len(p.groups)-1]
	g.Supersteps += n
	g.Work += w.Seconds()
	g.H += h
	p.fill++
}

// halve merges the groups by pairs: each then holds twice the Adds.
func (p *Profile) halve() {
	out := p.groups[:0]
	for i := 0; i < len(p.groups); i += 2 {
		g := p.groups[i]
		if i+1 < len(p.groups) {
			g.Supersteps += p.groups[i+1].Supersteps
			g.Work += p.groups[i+1].Work
			g.H += p.groups[i+1].H
		}
		out = append(out, g)
	}
	p.groups = out
	p.width *= 2
}

// Groups returns the profile's groups (a copy).
func (p *Profile) Groups() []gridapp.SuperstepGroup {
	return append([]gridapp.SuperstepGroup(nil), p.groups...)
}

// MaxGroups combines the processes' profiles group by group: the most
// supersteps, the slowest computation and the largest h-relation of any
// process (BSP's W and h of a superstep are those of its busiest
// process). Profiles of different lengths (a process that took no part)
// combine over the longest.
func MaxGroups(procs [][]gridapp.SuperstepGroup) []gridapp.SuperstepGroup {
	var out []gridapp.SuperstepGroup
	for _, gs := range procs {
		for i, g := range gs {
			if i == len(out) {
				out = append(out, g)
				continue
			}
			o := &out[i]
			o.Supersteps, o.Work, o.H = max(o.Supersteps, g.Supersteps), max(o.Work, g.Work), max(o.H, g.H)
		}
	}
	return out
}

// ProfileLen is the values EncodeProfile writes: the group count, then
// each group's supersteps, work (seconds) and h (bytes).
const ProfileLen = 1 + 3*ProfileGroups

// EncodeProfile writes groups (at most ProfileGroups) into dst, which
// holds ProfileLen values: a profile in a part's result.
func EncodeProfile(dst []float64, groups []gridapp.SuperstepGroup) {
	groups = groups[:min(len(groups), ProfileGroups)]
	dst[0] = float64(len(groups))
	for i, g := range groups {
		dst[1+3*i], dst[2+3*i], dst[3+3*i] = float64(g.Supersteps), g.Work, float64(g.H)
	}
}

// DecodeProfile reads what EncodeProfile wrote; nil when src is too short
// or its count out of range; a figure that is not a number or negative
// reads as 0, one beyond any run's as the largest allowed.
func DecodeProfile(src []float64) []gridapp.SuperstepGroup {
	if len(src) < ProfileLen || !(src[0] >= 0 && src[0] <= ProfileGroups) {
		return nil
	}
	groups := make([]gridapp.SuperstepGroup, int(src[0]))
	for i := range groups {
		v := src[1+3*i:]
		groups[i] = gridapp.SuperstepGroup{Supersteps: int(within(v[0], 1<<40)), Work: within(v[1], 1e12), H: int64(within(v[2], 1<<62))}
	}
	return groups
}

// within is x in [0, limit]: NaN and negative values read as 0, larger
// ones (+Inf) as limit, so that a conversion to an integer cannot wrap.
func within(x, limit float64) float64 {
	if !(x >= 0) {
		return 0
	}
	return min(x, limit)
}
