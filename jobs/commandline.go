package jobs

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// CommandLine is the `gridtui run` command line that runs s, as a user
// would type it (what k9s users know as "the kubectl equivalent"): the
// flags that differ from the default job, the node selection by name or
// count. exact is false when a flag cannot say the whole job — explicit
// groups, or a count of any nodes beside named ones —: the job file says
// it (ctrl+s in the console).
func CommandLine(s Spec) (line string, exact bool) {
	d := DefaultSpec()
	s = s.WithDefaults()
	args := []string{"gridtui", "run"}
	add := func(flag, val string) { args = append(args, flag, shellWord(val)) }
	if s.App != d.App {
		add("--app", s.App)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Params)) {
		if s.App != d.App || s.Params[k] != d.Params[k] {
			add("--param", k+"="+s.Params[k])
		}
	}
	if s.Scheme != d.Scheme {
		add("--scheme", string(s.Scheme))
	}
	if s.Detector != DefaultDetector(s.Scheme) {
		add("--detector", string(s.Detector))
	}
	if s.Cores != d.Cores {
		add("--cores", strconv.Itoa(s.Cores))
	}
	if s.MaxIter != d.MaxIter {
		add("--max-iter", strconv.Itoa(s.MaxIter))
	}
	if s.Iterations != d.Iterations {
		add("--iterations", strconv.Itoa(s.Iterations))
	}
	if s.WallTime != d.WallTime {
		add("--wall-time", s.WallTime.Round(time.Millisecond).String())
	}
	exact = len(s.Groups) == 0
	names := slices.Concat(s.Nodes.Sites, s.Nodes.Clusters, s.Nodes.Hosts)
	switch {
	case len(names) > 0:
		add("--nodes", strings.Join(names, ","))
		exact = exact && s.Nodes.Any == 0
	case s.Nodes.Any > 0:
		add("--nodes", strconv.Itoa(s.Nodes.Any))
	}
	if s.Output.VTI || s.Output.Raw {
		add("--out", cmpOr(s.Output.Dir, "."))
		exact = exact && s.Output.VTI && s.Output.Raw
	}
	return strings.Join(args, " "), exact
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.,/=:+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
