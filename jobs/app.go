package jobs

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// Application returns the job's registered application and its parameters,
// checked against the application's declarations. An unknown
// application or a bad parameter is a field error naming app or
// params.NAME.
func (s Spec) Application() (gridapp.Application, gridapp.Values, error) {
	app, err := gridapp.Lookup(s.App)
	if err != nil {
		if c := gridapp.Closest(s.App, gridapp.Names()); c != "" {
			return nil, gridapp.Values{}, bad("app", "app %q is unknown (did you mean %s? registered: %s)", s.App, c, appNames())
		}
		return nil, gridapp.Values{}, bad("app", "app %q is unknown (registered: %s); an application of your own needs a binary of its own that registers it (gridapp.Register, see docs/APPLICATIONS.md)", s.App, appNames())
	}
	v, err := gridapp.Parse(app.Params(), s.Params)
	if err != nil {
		path := "params"
		for _, p := range app.Params() {
			if errors.Is(err, gridapp.ErrParam) && containsParam(err.Error(), p.Name) {
				path = "params." + p.Name
				break
			}
		}
		return nil, gridapp.Values{}, bad(path, "app %s: %v", s.App, err)
	}
	return app, v, nil
}

// AbsPaths returns s with the relative values of its application's file
// parameters (gridapp.Param.File) joined to dir, in [params] and in the
// values of [sweep]: the submitter calls it
// with the job file's directory (LoadSpec) and its working directory
// (engine, and gridtui run for a sweep's values, which a --resume from
// another directory reads back), since every worker opens the file in a
// working directory of its own. An unknown application leaves s unchanged.
func (s Spec) AbsPaths(dir string) Spec {
	app, err := gridapp.Lookup(s.App)
	if err != nil {
		return s
	}
	if len(s.Params) > 0 {
		s.Params = gridapp.AbsPaths(app.Params(), s.Params, dir)
	}
	if s.Sweep != nil {
		sw := &Sweep{Axes: make([]SweepAxis, len(s.Sweep.Axes))}
		for i, a := range s.Sweep.Axes {
			sw.Axes[i] = SweepAxis{Name: a.Name, Values: make([]string, len(a.Values))}
			for j, v := range a.Values {
				sw.Axes[i].Values[j] = gridapp.AbsPaths(app.Params(), map[string]string{a.Name: v}, dir)[a.Name]
			}
		}
		s.Sweep = sw
	}
	return s
}

// containsParam reports whether a gridapp parameter error is about name
// ("gridapp: bad parameter: NAME: …").
func containsParam(text, name string) bool {
	want := gridapp.ErrParam.Error() + ": " + name + ":"
	return len(text) >= len(want) && text[:len(want)] == want
}

func appNames() string {
	names := gridapp.Names()
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// refused says why app cannot write the output o asks for, before the run
// starts: VTI and raw files need a grid (gridapp.Gridded), except that an
// application writing its own VTI files (gridapp.Outputter) may be asked
// for VTI; "" when it can.
func (o Output) refused(name string, app gridapp.Application) string {
	_, grid := app.(gridapp.Gridded)
	_, own := app.(gridapp.Outputter)
	switch {
	case grid:
		return ""
	case o.Raw:
		return fmt.Sprintf("output: application %s cannot say its grid shape (gridapp.Gridded), so it has no raw solution file to write: drop --out, or raw from the job's [output]", name)
	case o.VTI && !own:
		return fmt.Sprintf("output: application %s cannot say its grid shape (gridapp.Gridded), so it has no VTI file to write: drop --out, or vti from the job's [output]", name)
	}
	return ""
}
