package sweep

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// MaxInstances bounds a sweep: beyond it the sweep is refused rather
// than queued (a typo in a range should not start a million jobs).
const MaxInstances = 100_000

// Axis is one swept parameter and the values it takes, in order.
type Axis struct {
	Name   string
	Values []string
}

// ErrSweep is wrapped by every error about a sweep's definition.
var ErrSweep = errors.New("sweep")

// ParseAxis parses "name=v1,v2,v3" or an integer range "name=lo:hi:step"
// (hi included; step 1 when left out).
func ParseAxis(s string) (Axis, error) {
	name, list, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return Axis{}, fmt.Errorf("%w: %q: want name=v1,v2,… or name=lo:hi:step", ErrSweep, s)
	}
	a := Axis{Name: name}
	if strings.Contains(list, ":") && !strings.Contains(list, ",") {
		vals, err := parseRange(list)
		if err != nil {
			return Axis{}, fmt.Errorf("%w: %s: %w", ErrSweep, name, err)
		}
		a.Values = vals
		return a, nil
	}
	for _, v := range strings.Split(list, ",") {
		if v = strings.TrimSpace(v); v != "" {
			a.Values = append(a.Values, v)
		}
	}
	if len(a.Values) == 0 {
		return Axis{}, fmt.Errorf("%w: %s: an empty list of values", ErrSweep, name)
	}
	return a, nil
}

func parseRange(s string) ([]string, error) {
	f := strings.Split(s, ":")
	if len(f) < 2 || len(f) > 3 {
		return nil, fmt.Errorf("range %q: want lo:hi or lo:hi:step", s)
	}
	n := make([]int64, 3)
	n[2] = 1
	for i, x := range f {
		v, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("range %q: %q is not an integer", s, x)
		}
		n[i] = v
	}
	lo, hi, step := n[0], n[1], n[2]
	switch {
	case step <= 0:
		return nil, fmt.Errorf("range %q: the step must be positive", s)
	case hi < lo:
		return nil, fmt.Errorf("range %q: empty (%d > %d)", s, lo, hi)
	case (hi-lo)/step >= MaxInstances:
		return nil, fmt.Errorf("range %q: %d values, more than the %d a sweep may have", s, (hi-lo)/step+1, MaxInstances)
	}
	var out []string
	for v := lo; v <= hi; v += step {
		out = append(out, strconv.FormatInt(v, 10))
	}
	return out, nil
}

// Expand returns the instances of the axes: every combination of their
// values, the last axis varying fastest, each merged over base. A name
// swept twice, or more than MaxInstances instances, is refused; known, if
// not nil, says whether the application has a parameter.
func Expand(base map[string]string, axes []Axis, known func(string) bool) ([]map[string]string, error) {
	if len(axes) == 0 {
		return nil, fmt.Errorf("%w: no parameter to sweep", ErrSweep)
	}
	total := 1
	seen := map[string]bool{}
	for _, a := range axes {
		if seen[a.Name] {
			return nil, fmt.Errorf("%w: %s is swept twice", ErrSweep, a.Name)
		}
		seen[a.Name] = true
		if known != nil && !known(a.Name) {
			return nil, fmt.Errorf("%w: the application has no parameter %q", ErrSweep, a.Name)
		}
		if len(a.Values) == 0 {
			return nil, fmt.Errorf("%w: %s: an empty list of values", ErrSweep, a.Name)
		}
		total *= len(a.Values)
		if total > MaxInstances {
			return nil, fmt.Errorf("%w: more than %d instances (the product of the lists' lengths): sweep fewer values, or split the sweep", ErrSweep, MaxInstances)
		}
	}
	out := make([]map[string]string, 0, total)
	idx := make([]int, len(axes))
	for range total {
		p := make(map[string]string, len(base)+len(axes))
		for k, v := range base {
			p[k] = v
		}
		for i, a := range axes {
			p[a.Name] = a.Values[idx[i]]
		}
		out = append(out, p)
		for i := len(axes) - 1; i >= 0; i-- {
			if idx[i]++; idx[i] < len(axes[i].Values) {
				break
			}
			idx[i] = 0
		}
	}
	return out, nil
}
