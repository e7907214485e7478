package inventory

// The batch schedulers built into gridtui, which a site's launcher may
// name. Each registers itself by name (sched.RegisterScheduler) in its
// package's init, as database/sql drivers do; a new scheduler is a package
// under deploy/sched and one more line here (or an import by the program,
// before it reads sites.toml).
import (
	_ "github.com/gridtui/gridtui/deploy/sched/oar"
	_ "github.com/gridtui/gridtui/deploy/sched/pbs"
	_ "github.com/gridtui/gridtui/deploy/sched/sge"
	_ "github.com/gridtui/gridtui/deploy/sched/slurm"
)
