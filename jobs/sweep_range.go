package jobs

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrSweep is wrapped by every error of a sweep's values: an empty list, a
// range that does not parse or takes no value, too many instances.
var ErrSweep = errors.New("jobs: invalid sweep")

// maxAxisValues bounds the values of one range before any is made, so that
// "1:1000000000" is refused, not allocated.
const maxAxisValues = 1_000_000

// ParseSweepValues reads the values of one swept parameter as given on the
// command line: a range when text is one (ParseRange), else a comma list
// ("32,48,64"; blanks around the commas are dropped). An empty list, or an
// empty item, is an error.
func ParseSweepValues(text string) ([]string, error) {
	if IsRange(text) {
		return ParseRange(text)
	}
	var out []string
	for _, item := range strings.Split(text, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("%w: %q: an empty value in the list", ErrSweep, text)
		}
		out = append(out, item)
	}
	return out, nil
}

// IsRange reports whether text has the shape of a range, START:STOP or
// START:STOP:STEP with numbers for START and STOP.
func IsRange(text string) bool {
	parts := strings.Split(text, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return false
	}
	for _, p := range parts[:2] {
		if _, err := strconv.ParseFloat(strings.TrimSpace(p), 64); err != nil {
			return false
		}
	}
	return true
}

// ParseRange expands a range, both ends included when the steps reach them:
//
//	1:8        integers 1, 2, …, 8 (START and STOP integers, step 1)
//	0:1:0.25   0, 0.25, 0.5, 0.75, 1 (an additive step; its sign is
//	           the direction from START to STOP, so 8:1:2 is 8, 6, 4, 2)
//	8:64:x2    8, 16, 32, 64 (a factor after x, above 1: multiplied
//	           towards STOP, so 1e-6:1e-9:x10 is 1e-6, 1e-7, 1e-8, 1e-9)
//
// Values are printed as Go prints float64 (%g), after rounding to 12
// significant digits so that 0.1 steps do not read 0.30000000000000004.
func ParseRange(text string) ([]string, error) {
	parts := strings.Split(text, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return nil, fmt.Errorf("%w: range %q: want START:STOP or START:STOP:STEP", ErrSweep, text)
	}
	a, errA := strconv.ParseFloat(strings.TrimSpace(parts[0]), 64)
	b, errB := strconv.ParseFloat(strings.TrimSpace(parts[1]), 64)
	if errA != nil || errB != nil || isBad(a) || isBad(b) {
		return nil, fmt.Errorf("%w: range %q: START and STOP must be finite numbers", ErrSweep, text)
	}
	step := "1"
	if len(parts) == 3 {
		step = strings.TrimSpace(parts[2])
	} else if a != math.Trunc(a) || b != math.Trunc(b) {
		return nil, fmt.Errorf("%w: range %q: a range of non-integers needs a step (START:STOP:STEP)", ErrSweep, text)
	}
	if f, ok := strings.CutPrefix(step, "x"); ok {
		k, err := strconv.ParseFloat(f, 64)
		if err != nil || !(k > 1) || isBad(k) {
			return nil, fmt.Errorf("%w: range %q: the factor %q must be a number above 1", ErrSweep, text, f)
		}
		return geometric(text, a, b, k)
	}
	s, err := strconv.ParseFloat(strings.TrimPrefix(step, "+"), 64)
	if err != nil || s == 0 || isBad(s) {
		return nil, fmt.Errorf("%w: range %q: the step %q must be a non-zero number (or xK for a factor)", ErrSweep, text, step)
	}
	return arithmetic(text, a, b, math.Abs(s))
}

func isBad(f float64) bool { return math.IsNaN(f) || math.IsInf(f, 0) }

// arithmetic is START, START±s, … up to STOP.
func arithmetic(text string, a, b, s float64) ([]string, error) {
	span := math.Abs(b - a)
	n := math.Floor(span/s*(1+1e-12)) + 1
	if n > maxAxisValues {
		return nil, fmt.Errorf("%w: range %q makes %.0f values (at most %d)", ErrSweep, text, n, maxAxisValues)
	}
	dir := 1.0
	if b < a {
		dir = -1
	}
	out := make([]string, 0, int(n))
	for i := 0; i < int(n); i++ {
		out = append(out, formatValue(a+dir*float64(i)*s))
	}
	return out, nil
}

// geometric is START, START·k±1, … up to STOP.
func geometric(text string, a, b, k float64) ([]string, error) {
	if a == 0 || b == 0 || (a < 0) != (b < 0) {
		return nil, fmt.Errorf("%w: range %q: a factor needs START and STOP of the same sign, not zero", ErrSweep, text)
	}
	ratio := math.Abs(b / a)
	n := math.Floor(math.Abs(math.Log(ratio))/math.Log(k)*(1+1e-12)+1e-9) + 1
	if n > maxAxisValues {
		return nil, fmt.Errorf("%w: range %q makes %.0f values (at most %d)", ErrSweep, text, n, maxAxisValues)
	}
	f := k
	if ratio < 1 {
		f = 1 / k
	}
	out := make([]string, 0, int(n))
	for i := 0; i < int(n); i++ {
		out = append(out, formatValue(a*math.Pow(f, float64(i))))
	}
	return out, nil
}

// formatValue prints v with 12 significant digits at most, as %g does.
func formatValue(v float64) string {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	if err != nil {
		r = v
	}
	if r == 0 {
		r = 0 // no "-0"
	}
	return strconv.FormatFloat(r, 'g', -1, 64)
}
