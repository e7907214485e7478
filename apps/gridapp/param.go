package gridapp

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// ErrParam is wrapped by every error Parse returns.
var ErrParam = errors.New("gridapp: bad parameter")

// Kind is the type of a parameter's value.
type Kind uint8

// Parameter kinds.
const (
	Int Kind = iota + 1
	Float
	String
	Bool
)

var kindNames = [...]string{"", "int", "float", "string", "bool"}

// String returns the kind's name as help texts show it.
func (k Kind) String() string {
	if int(k) < len(kindNames) && k > 0 {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Param declares one parameter of an application: what job files, the
// console's Compose form and `gridtui run --param name=value` show and
// validate. Default is written as a user would type it. A numeric parameter
// with Bounded set must lie in [Min, Max] (MinOpen: Min itself excluded); a
// String parameter with Choices must be one of them.
type Param struct {
	Name    string
	Kind    Kind
	Default string
	Help    string
	Bounded bool
	Min     float64
	Max     float64
	MinOpen bool
	Choices []string
	// File marks a String parameter whose value is a file's path: the
	// submitter makes a relative one absolute (AbsPaths) before the task
	// travels, since every worker opens it in its own working directory.
	// The file must exist at that path on every node's host.
	File bool
	// Layout marks a parameter that lays the problem out on the nodes (a
	// decomposition such as blocks = 2x2x1) and is no part of the problem:
	// runs that differ only in it solve one problem, compared in one table
	// row, with one t1 for the computing gain and one set of traces for
	// the predictor (jobs.Instance leaves it out).
	Layout bool
}

// AsLayout returns p marked as a layout parameter (see Param.Layout).
func (p Param) AsLayout() Param {
	p.Layout = true
	return p
}

// IntParam declares an integer parameter in [min, max].
func IntParam(name string, def, min, max int, help string) Param {
	return Param{Name: name, Kind: Int, Default: strconv.Itoa(def), Help: help, Bounded: true,
		Min: float64(min), Max: float64(max)}
}

// FloatParam declares a finite float parameter in [min, max].
func FloatParam(name string, def, min, max float64, help string) Param {
	return Param{Name: name, Kind: Float, Default: strconv.FormatFloat(def, 'g', -1, 64), Help: help,
		Bounded: true, Min: min, Max: max}
}

// StringParam declares a string parameter; choices, if any, are the values
// it may take.
func StringParam(name, def string, choices []string, help string) Param {
	return Param{Name: name, Kind: String, Default: def, Help: help, Choices: choices}
}

// FileParam declares a String parameter holding a file's path (see
// Param.File).
func FileParam(name, help string) Param {
	return Param{Name: name, Kind: String, Help: help, File: true}
}

// AbsPaths returns given with the relative values of its File parameters
// joined to dir (the submitter's working directory, or the directory of the
// job file that gave them), and the other values unchanged.
func AbsPaths(params []Param, given map[string]string, dir string) map[string]string {
	var out map[string]string
	for _, p := range params {
		v, ok := given[p.Name]
		if !p.File || !ok || v == "" || filepath.IsAbs(v) {
			continue
		}
		if out == nil {
			out = maps.Clone(given)
		}
		out[p.Name] = filepath.Join(dir, v)
	}
	if out == nil {
		return given
	}
	return out
}

// BoolParam declares a boolean parameter (true/false, 1/0, yes/no).
func BoolParam(name string, def bool, help string) Param {
	return Param{Name: name, Kind: Bool, Default: strconv.FormatBool(def), Help: help}
}

// Above returns p with its lower bound excluded: (Min, Max] instead of
// [Min, Max], as for a tolerance that must be positive.
func (p Param) Above() Param {
	p.MinOpen = true
	return p
}

// Range describes p's accepted values for help texts: "(0, 1]", "1…4096",
// "one of a, b".
func (p Param) Range() string {
	switch {
	case len(p.Choices) > 0:
		return "one of " + strings.Join(p.Choices, ", ")
	case !p.Bounded:
		return "any " + p.Kind.String()
	case p.Kind == Int:
		return bound(p.Min) + "…" + bound(p.Max)
	case p.Max >= math.MaxFloat64 && p.MinOpen:
		return "> " + bound(p.Min)
	case p.Max >= math.MaxFloat64:
		return "≥ " + bound(p.Min)
	case p.MinOpen:
		return "(" + bound(p.Min) + ", " + bound(p.Max) + "]"
	}
	return "[" + bound(p.Min) + ", " + bound(p.Max) + "]"
}

// bound formats a range's bound as it would be typed: whole numbers in
// full (100000000, not 1e+08), others shortest (1e-08, 0.5).
func bound(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// DefaultText is Default as help texts show it: "none" for an empty
// default (a parameter such as a program's path that the job must give).
func (p Param) DefaultText() string {
	if p.Default == "" {
		return "none"
	}
	return p.Default
}

// parse converts and checks one value of p.
func (p Param) parse(s string) (any, error) {
	s = strings.TrimSpace(s)
	var v any
	var x float64
	switch p.Kind {
	case Int:
		i, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", s)
		}
		v, x = i, float64(i)
	case Float:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%q is not a finite number", s)
		}
		v, x = f, f
	case Bool:
		switch strings.ToLower(s) {
		case "true", "1", "yes", "on":
			return true, nil
		case "false", "0", "no", "off":
			return false, nil
		}
		return nil, fmt.Errorf("%q is not true or false", s)
	case String:
		if len(p.Choices) > 0 && !slices.Contains(p.Choices, s) {
			return nil, fmt.Errorf("%q is not %s", s, p.Range())
		}
		return s, nil
	default:
		return nil, fmt.Errorf("unknown kind %s", p.Kind)
	}
	if p.Bounded && (x < p.Min || x > p.Max || (p.MinOpen && x == p.Min)) {
		return nil, fmt.Errorf("%s is outside %s", s, p.Range())
	}
	return v, nil
}

// Values are an application's parameters after Parse: every declared
// parameter has a value of its kind, within its range.
type Values struct {
	params []Param
	v      map[string]any
}

// Parse checks the given parameters (name → value as typed) against the
// declarations, fills in defaults, and returns the values. Unknown names,
// malformed values and values out of range are errors naming the parameter
// and its accepted range; a default that does not parse is the
// application's bug and is reported as such.
func Parse(params []Param, given map[string]string) (Values, error) {
	vals := Values{params: params, v: map[string]any{}}
	known := map[string]bool{}
	for _, p := range params {
		known[p.Name] = true
	}
	var unknown []string
	for k := range given {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		names := make([]string, len(params))
		for i, p := range params {
			names[i] = p.Name
		}
		return Values{}, fmt.Errorf("%w: unknown %s %s%s (declared: %s)", ErrParam,
			plural(len(unknown), "parameter", "parameters"), strings.Join(unknown, ", "), DidYouMean(unknown[0], names), strings.Join(names, ", "))
	}
	for _, p := range params {
		s, ok := given[p.Name]
		if !ok {
			s = p.Default
		}
		v, err := p.parse(s)
		if err != nil {
			if !ok {
				return Values{}, fmt.Errorf("%w: %s: the declared default %s", ErrParam, p.Name, err)
			}
			return Values{}, fmt.Errorf("%w: %s: %s", ErrParam, p.Name, err)
		}
		vals.v[p.Name] = v
	}
	return vals, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (v Values) get(name string, k Kind) any {
	x, ok := v.v[name]
	if !ok {
		panic("gridapp: Values: parameter not declared")
	}
	for _, p := range v.params {
		if p.Name == name && p.Kind != k {
			panic("gridapp: Values: parameter read as the wrong kind")
		}
	}
	return x
}

// Declares reports whether the values hold a parameter name of kind k, so
// that generic code (a job's default name, a prediction's problem size)
// can read a conventional parameter such as "n" when it is there.
func (v Values) Declares(name string, k Kind) bool {
	for _, p := range v.params {
		if p.Name == name {
			return p.Kind == k
		}
	}
	return false
}

// Int returns an Int parameter's value. Reading an undeclared parameter, or
// one of another kind, is a programmer error and panics.
func (v Values) Int(name string) int { return v.get(name, Int).(int) }

// Float returns a Float parameter's value (panics like Int).
func (v Values) Float(name string) float64 { return v.get(name, Float).(float64) }

// String returns a String parameter's value (panics like Int).
func (v Values) String(name string) string { return v.get(name, String).(string) }

// Bool returns a Bool parameter's value (panics like Int).
func (v Values) Bool(name string) bool { return v.get(name, Bool).(bool) }

// Encode returns the values in one canonical text each (defaults
// included): integers and floats as strconv formats them (1e-08 whether
// typed 1e-8 or 0.00000001), booleans as true or false, strings as given.
// It is what the engine sends a worker and what the results store records,
// so that the same value typed two ways is the same problem. Parse of the
// same declarations gives the same Values back.
func (v Values) Encode() map[string]string {
	out := make(map[string]string, len(v.v))
	for name, x := range v.v {
		out[name] = canonical(x)
	}
	return out
}

// canonical is the text Encode gives a parsed value.
func canonical(x any) string {
	switch x := x.(type) {
	case int:
		return strconv.Itoa(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	}
	return fmt.Sprint(x)
}
