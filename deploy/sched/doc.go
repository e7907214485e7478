// Package sched is the registry of the batch schedulers gridtui starts
// workers under (Slurm, OAR, Grid Engine, PBS): a scheduler owns a site's
// compute nodes, and gridtui starts one worker per node as a step of an
// allocation, the one it runs in or one it asks the site's frontend for.
//
// A scheduler is a handful of command lines and parsers (Scheduler, and
// Allocator for those a frontend can be asked for an allocation), in a
// package of its own under deploy/sched that registers itself by name in an
// init function (RegisterScheduler), as database/sql drivers do: the
// launcher of a site in sites.toml names one, and adding one edits no
// switch. The package also reads what a scheduler tells a job about its
// allocation: node files (ParseNodeFile: OAR's and PBS's one line per slot,
// Grid Engine's $PE_HOSTFILE) and node sets ("n[01-04,07]", ExpandNodeSet).
package sched
