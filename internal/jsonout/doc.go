// Package jsonout writes the JSON that gridtui's commands print with --json,
// under one naming convention: every object key is snake_case. A struct field
// is named by its json tag, else its toml tag (so a job's keys read as in a
// job file), else its Go name in snake_case (PeakRSS → peak_rss); a
// time.Duration is a number of seconds, and an untagged duration field's key
// ends in _seconds (Wall → wall_seconds), as the results store's records do.
// Types with their own JSON or text form (time.Time, netip.Addr, node states)
// keep it; an error is its message. Map keys are data and are kept as they
// are.
package jsonout
