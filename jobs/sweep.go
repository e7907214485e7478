package jobs

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// DefaultMaxInstances is the most instances a sweep may have unless its
// runner is told otherwise (gridtui run --max-instances): a product of
// ranges grows fast, and a typing slip should not start a million runs.
const DefaultMaxInstances = 10000

// Sweep is a parametric job (the [sweep] section of a job file, --sweep on
// the command line): each of its axes takes a list of values, and the
// instances are their cartesian product, the first axis varying slowest.
type Sweep struct {
	Axes []SweepAxis
}

// SweepAxis is one swept name and its values as text. The name is a
// parameter of the job's application, or one of the job's own fields
// scheme, detector, nodes (a count) and cores.
type SweepAxis struct {
	Name   string
	Values []string
}

// SweepFields are the job fields a sweep may vary besides the
// application's parameters.
var SweepFields = []string{"scheme", "detector", "nodes", "cores"}

// Point is one instance of a sweep: its index in the product and the value
// of each axis, in the axes' order.
type Point struct {
	Index  int
	Names  []string
	Values []string
}

// Key is the point as "name=value name=value", in the axes' order: what a
// job log and a results table identify the instance by.
func (p Point) Key() string {
	var b strings.Builder
	for i, n := range p.Names {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(n + "=" + p.Values[i])
	}
	return b.String()
}

// Map is the point as a map from name to value.
func (p Point) Map() map[string]string {
	m := make(map[string]string, len(p.Names))
	for i, n := range p.Names {
		m[n] = p.Values[i]
	}
	return m
}

// Count is the number of instances of the sweep (the product of the axes'
// lengths), saturated at limit+1 so that it cannot overflow.
func (sw Sweep) Count(limit int) int {
	n := 1
	for _, a := range sw.Axes {
		n *= len(a.Values)
		if n > limit {
			return limit + 1
		}
	}
	return n
}

// Points lists the instances of the sweep, the first axis varying slowest;
// more than limit of them is an error naming the count and how to allow it.
func (sw Sweep) Points(limit int) ([]Point, error) {
	if n := sw.Count(limit); n > limit {
		return nil, fmt.Errorf("%w: %s make more than %d instances (%s); allow more with --max-instances", ErrSweep, sw.describe(), limit, sw.product())
	}
	total := sw.Count(limit)
	names := make([]string, len(sw.Axes))
	for i, a := range sw.Axes {
		names[i] = a.Name
	}
	out := make([]Point, total)
	for idx := range out {
		vals := make([]string, len(sw.Axes))
		rest := idx
		for i := len(sw.Axes) - 1; i >= 0; i-- {
			k := len(sw.Axes[i].Values)
			vals[i] = sw.Axes[i].Values[rest%k]
			rest /= k
		}
		out[idx] = Point{Index: idx, Names: names, Values: vals}
	}
	return out, nil
}

func (sw Sweep) describe() string {
	var names []string
	for _, a := range sw.Axes {
		names = append(names, a.Name)
	}
	return "the values of " + strings.Join(names, ", ")
}

func (sw Sweep) product() string {
	var parts []string
	for _, a := range sw.Axes {
		parts = append(parts, strconv.Itoa(len(a.Values)))
	}
	return strings.Join(parts, " × ")
}

// At returns the instance of s at point p: the job with each swept name set
// to its value and no sweep. Its name is the job's with the point's index
// ("poisson-hybrid#7").
func (s Spec) At(p Point) (Spec, error) {
	out := s
	out.Sweep = nil
	out.Params = maps.Clone(s.Params)
	out.Name = fmt.Sprintf("%s#%d", s.Name, p.Index)
	for i, name := range p.Names {
		if err := out.set(name, p.Values[i]); err != nil {
			return out, err
		}
	}
	return out, nil
}

// set gives one swept name its value in the job.
func (s *Spec) set(name, v string) error {
	var err error
	switch {
	case name == "scheme":
		s.Scheme = Scheme(v)
		s.Detector = DefaultDetector(s.Scheme)
	case name == "detector":
		s.Detector = Detector(v)
	case name == "nodes":
		var k int
		k, err = strconv.Atoi(v)
		if err == nil && k < 1 {
			return fmt.Errorf("%w: nodes = %s: want at least 1", ErrSweep, v)
		}
		s.Nodes.Any, s.Groups = k, nil
	case name == "cores":
		s.Cores, err = strconv.Atoi(v)
	default:
		if s.Params == nil {
			s.Params = map[string]string{}
		}
		s.Params[name] = v
	}
	if err != nil {
		return fmt.Errorf("%w: %s = %s: not a number", ErrSweep, name, v)
	}
	return nil
}

// CheckSweep checks the sweep's names and values against the job: a name
// neither a parameter of the application nor a sweep field (with the
// closest one as "did you mean"), an empty list, a value the application or
// the job refuses. The error is a field error at "sweep.NAME".
func (s Spec) CheckSweep() error {
	if s.Sweep == nil {
		return nil
	}
	known := slices.Clone(SweepFields)
	if app, err := gridapp.Lookup(s.App); err == nil {
		for _, p := range app.Params() {
			known = append(known, p.Name)
		}
	}
	seen := map[string]bool{}
	for _, a := range s.Sweep.Axes {
		key := "sweep." + a.Name
		if !slices.Contains(known, a.Name) {
			return bad(key, "sweep: %s is no parameter of app %s%s (its parameters: %s; and the fields %s)",
				a.Name, s.App, didYouMean(a.Name, known), strings.Join(known[len(SweepFields):], ", "), strings.Join(SweepFields, ", "))
		}
		if seen[a.Name] {
			return bad(key, "sweep: %s is swept twice", a.Name)
		}
		seen[a.Name] = true
		if len(a.Values) == 0 {
			return bad(key, "sweep: %s has an empty list of values", a.Name)
		}
		for _, v := range a.Values {
			if err := s.checkValue(a.Name, v); err != nil {
				return bad(key, "sweep: %s = %s: %v", a.Name, v, err)
			}
		}
	}
	return nil
}

// checkValue validates the job with one swept name set to v.
func (s Spec) checkValue(name, v string) error {
	one := s
	one.Sweep = nil
	one.Params = maps.Clone(s.Params)
	if err := one.set(name, v); err != nil {
		return err
	}
	if ps := one.Problems(); len(ps) > 0 {
		return fmt.Errorf("%s", strings.TrimPrefix(ps[0].Msg, "app "+s.App+": "))
	}
	return nil
}

// didYouMean returns ` (did you mean "x"?)` for the known name closest to
// name, when one is close enough to be a slip.
func didYouMean(name string, known []string) string {
	best, bestD := "", len(name)/2+2
	for _, k := range known {
		if d := editDistance(strings.ToLower(name), strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)]
}
