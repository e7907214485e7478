// Package owner decides when gridtui may use a desktop whose owner comes
// first: InteGrade's "without disturbing their owners" (seed 004), with
// HTCondor's startd policy as the anchor (START when the keyboard and the
// CPU have been idle; SUSPEND when the owner returns or the CPU gets busy;
// CONTINUE when they leave again; PREEMPT — here drain, the part given back
// to a spare — after a maximum suspension; KILL — here stop — after a
// maximum vacate time) and BOINC's preferences for the thresholds. A Policy
// is read from sites.toml ([…owner] tables, decoded in deploy); a Decider
// turns Observations (interactive idle time as `w` shows it, the CPU load
// of processes that are not gridtui's, free memory, the clock) into
// Decisions, each with its reason; a Governor samples this host and applies
// them to a worker's process group (SIGSTOP, SIGCONT) and hooks.
package owner
