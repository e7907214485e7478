package jobs

import (
	"errors"
	"strconv"
	"strings"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// Application returns the job's registered application and its parameters,
// checked against the application's declarations: the obstacle problem's
// from the [obstacle] section, any other's from [params]. An unknown
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
	params := s.Params
	if s.App == "obstacle" {
		params = map[string]string{"n": strconv.Itoa(s.Obstacle.N), "eps": strconv.FormatFloat(s.Obstacle.Eps, 'g', -1, 64)}
	}
	v, err := gridapp.Parse(app.Params(), params)
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
// parameters (gridapp.Param.File) joined to dir: the submitter calls it
// with the job file's directory (LoadSpec) and its working directory
// (engine), since every worker opens the file in a working directory of its
// own. An unknown application leaves s unchanged.
func (s Spec) AbsPaths(dir string) Spec {
	app, err := gridapp.Lookup(s.App)
	if err != nil || len(s.Params) == 0 {
		return s
	}
	s.Params = gridapp.AbsPaths(app.Params(), s.Params, dir)
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
